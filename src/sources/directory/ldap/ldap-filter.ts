/**
 * Building blocks of LDAP search filters (RFC 4515): values escaped, so that a DN or an id taken
 * from the directory can never change a filter's meaning.
 */

/** RFC 4515 §3: `*`, `(`, `)`, `\` and NUL are written as `\` and two hex digits. */
export function escapeFilterValue(value: string): string {
  return value.replace(/[*()\\\0]/g, (char) => `\\${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** `(|(attribute=v1)(attribute=v2)…)` over already escaped values; one value needs no `|`. */
export function anyOf(attribute: string, escapedValues: readonly string[]): string {
  const terms = escapedValues.map((value) => `(${attribute}=${value})`);
  return terms.length === 1 ? (terms[0] ?? '') : `(|${terms.join('')})`;
}

/** Both filters must hold. */
export function allOf(...filters: readonly string[]): string {
  return `(&${filters.join('')})`;
}

/**
 * The 16 bytes of a GUID from its canonical string (the inverse of ldap-values.ts's guidString):
 * Data1, Data2 and Data3 little-endian, Data4 as is (MS-DTYP §2.3.4).
 */
export function guidBytes(guid: string): Buffer | undefined {
  const hex = guid.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) return undefined;
  const bytes = Buffer.from(hex, 'hex');
  return Buffer.concat([
    Buffer.from(bytes.subarray(0, 4)).reverse(),
    Buffer.from(bytes.subarray(4, 6)).reverse(),
    Buffer.from(bytes.subarray(6, 8)).reverse(),
    bytes.subarray(8, 16),
  ]);
}
