import type { Command } from 'commander';
import { openApiDocument } from '../../server/openapi.js';
import { openApiMarkdown } from '../../server/openapi-markdown.js';

/** `gdflow openapi`: the API's OpenAPI 3.1 document (what GET /openapi.json serves), without a server. */
export function registerOpenApi(program: Command): void {
  program
    .command('openapi')
    .description("print the API's OpenAPI 3.1 document (the same as GET /openapi.json), or its Markdown rendering (docs/api-reference.md)")
    .option('--markdown', 'the Markdown page instead of the JSON document')
    .action((flags: { markdown?: boolean }) => {
      const document = openApiDocument();
      process.stdout.write(flags.markdown ? openApiMarkdown(document) : `${JSON.stringify(document, null, 2)}\n`);
    });
}
