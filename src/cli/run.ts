import { failureText } from './cli-error.js';
import { buildProgram } from './program.js';

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  // Each action reports its own failures (cliAction); this only catches what escapes commander itself.
  const command = process.argv.slice(2).find((arg) => !arg.startsWith('-')) ?? 'all';
  process.stderr.write(`${failureText(command, error)}\n`);
  process.exit(1);
}
