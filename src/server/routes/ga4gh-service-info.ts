import { packageVersion } from '../../package-root.js';

/**
 * The GA4GH service-info fields (GA4GH Service Info 1.0) TES's and WES's service-info both answer with (docs/ga4gh.md):
 * the service's id, name, type, organization and links, made the same way for both; each API adds its own fields.
 */
export function ga4ghServiceInfo(baseUrl: string, api: { artifact: 'tes' | 'wes'; version: string; description: string }) {
  return {
    id: `org.gdflow.${api.artifact}`,
    name: `gdflow ${api.artifact.toUpperCase()}`,
    type: { group: 'org.ga4gh', artifact: api.artifact, version: api.version },
    description: api.description,
    organization: { name: 'gdflow', url: baseUrl },
    contactUrl: baseUrl,
    documentationUrl: `${baseUrl}/openapi.json`,
    environment: 'prod',
    version: packageVersion(),
  };
}
