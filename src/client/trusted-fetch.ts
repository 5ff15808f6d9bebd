import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent, fetch as undiciFetch } from 'undici';

/** PEM certificates, as Node's tls `ca` option takes them. */
export type CaCertificates = string | Buffer | Array<string | Buffer>;

/** Where the client's requests go through: the global fetch, or one that trusts more CAs. */
export type Fetch = typeof globalThis.fetch;

/** The certificates of a CA file (PEM), or an error that names the file and what is wrong with it. */
export function readCaFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the CA file ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`the CA file ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return text;
}

/**
 * A fetch that trusts `ca` besides Node's bundled CAs: a gdflow behind a reverse proxy whose certificate a private
 * CA signed. Node 20's global fetch takes no CA of its own (only NODE_EXTRA_CA_CERTS, read once at start), so this
 * is undici's fetch (the same library as the global one) with an agent that does.
 */
export function fetchTrusting(ca: CaCertificates): Fetch {
  const extra = Array.isArray(ca) ? ca : [ca];
  const agent = new Agent({ connect: { ca: [...rootCertificates, ...extra.map((c) => c.toString())] } });
  const trusting = (input: Parameters<Fetch>[0], init?: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher: agent });
  // undici's Response is the class the global fetch returns (Node bundles undici); only the type names differ.
  return trusting;
}
