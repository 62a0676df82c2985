import { stringify } from 'yaml';
import { maskConfig } from '../config/mask-config.js';
import { configFromEnvOrExit } from '../main.js';

export function checkConfigCommand(): void {
  const config = configFromEnvOrExit();
  process.stdout.write('# scim-bridge: configuration is valid; effective settings (secrets masked)\n');
  process.stdout.write(stringify(maskConfig(config)));
}
