import { z } from 'zod';
import type { SectionProblem, SectionSettings } from '../../../config/catalog.js';
import { int, optionalUrl } from '../../../config/schema.js';

/** The `google` source's settings (`directory.google`), with config/default.yaml's defaults. */
const shape = z.object({
  // The service account's JSON key, as text; given as a file (serviceAccountFile,
  // GOOGLE_SERVICE_ACCOUNT_FILE) it is re-read when the file changes.
  serviceAccount: z.string().default(''),
  adminSubject: z.string().default(''),
  customer: z
    .string()
    .regex(/^(my_customer|[A-Za-z0-9]+)$/, 'not my_customer or a customer id')
    .default('my_customer'),
  apiUrl: optionalUrl(['http', 'https']).default('https://admin.googleapis.com'),
  // Under Google's 2,400 queries a minute per user and project (Directory API, Limits and quotas).
  requestsPerMinute: int(1, 100_000).default(1800),
  concurrency: int(1, 32).default(4),
  // Audit log events show up late ("a couple of minutes", sometimes more): each change read reads
  // back this far before its watermark. At least 10 minutes.
  logOverlapSeconds: int(600, 86_400).default(900),
  customSchemas: z.array(z.string().regex(/^[A-Za-z0-9_]+$/, 'not a custom schema name')).default([]),
  retryAttempts: int(1, 20).default(6),
  backoffBaseMs: int(10, 60_000).default(1000),
});

export type GoogleSettings = z.output<typeof shape>;

export const googleSettings: SectionSettings<typeof shape> = {
  key: 'google',
  shape,
  env: [
    {
      env: 'GOOGLE_SERVICE_ACCOUNT',
      key: 'serviceAccount',
      kind: 'string',
      expected: "a service account's JSON key (or its path in GOOGLE_SERVICE_ACCOUNT_FILE)",
      secret: true,
    },
    {
      env: 'GOOGLE_ADMIN_SUBJECT',
      key: 'adminSubject',
      kind: 'string',
      expected: 'the address of the administrator the service account acts for',
    },
    { env: 'GOOGLE_CUSTOMER', key: 'customer', kind: 'string', expected: 'my_customer or a customer id' },
    {
      env: 'GOOGLE_API_URL',
      key: 'apiUrl',
      kind: 'string',
      expected: "the Admin SDK's root URL, e.g. https://admin.googleapis.com",
    },
  ],
  problems: googleProblems,
};

/** What a directory using the `google` source must have. */
function googleProblems(settings: GoogleSettings): SectionProblem[] {
  const problems: SectionProblem[] = [];
  for (const key of ['serviceAccount', 'adminSubject', 'apiUrl'] as const)
    if (settings[key].trim() === '') problems.push({ key, message: 'required' });
  if (settings.adminSubject !== '' && !/^[^@\s]+@[^@\s]+$/.test(settings.adminSubject))
    problems.push({ key: 'adminSubject', message: 'not an e-mail address' });
  return problems;
}
