import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { commandHelp } from '../../headless/cli';
import { cliReference } from '../../headless/cli-reference';
import { COMMANDS } from '../../headless/commands';

/** docs/cli.md is generated from the command table: it must be what the generator writes now. */
describe('docs/cli.md', () => {
  const doc = readFileSync(path.join(__dirname, '..', '..', 'docs', 'cli.md'), 'utf8');

  test('is up to date with the command table (npm run docs:cli rewrites it)', () => {
    expect(doc).toBe(cliReference());
  });

  test("holds every command's help as engram help COMMAND prints it", () => {
    for (const [name, command] of Object.entries(COMMANDS)) expect(doc).toContain(`## ${name}\n\n\`\`\`\n${commandHelp(name, command)}\n\`\`\``);
  });
});
