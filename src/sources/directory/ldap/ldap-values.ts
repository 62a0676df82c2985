import type { Entry } from 'ldapts';

/**
 * Attribute values of an LDAP entry as the snapshot needs them. Attribute names are matched without
 * case (servers answer in their own spelling). Binary identifiers become their usual text forms:
 * `objectGUID`, `mS-DS-ConsistencyGuid` and a DC's `invocationId` the canonical GUID string,
 * `objectSid` the `S-1-5-…` form; other binary values base64.
 */

type RawValue = string | Buffer;

const GUID_ATTRIBUTES = new Set(['objectguid', 'ms-ds-consistencyguid', 'invocationid']);
const SID_ATTRIBUTES = new Set(['objectsid']);

/** Names to ask ldapts to return as bytes, in the spellings servers use. */
export function binaryAttributeNames(requested: readonly string[]): string[] {
  const known = ['objectGUID', 'mS-DS-ConsistencyGuid', 'invocationId', 'objectSid'];
  const binary = [...requested, ...known].filter((name) => isBinary(name.toLowerCase()));
  return [...new Set(binary.flatMap((name) => [name, name.toLowerCase()]))];
}

export class EntryValues {
  private readonly byName = new Map<string, RawValue[]>();

  constructor(readonly entry: Entry) {
    for (const [name, value] of Object.entries(entry)) {
      if (name === 'dn') continue;
      const values = Array.isArray(value) ? value : [value];
      this.byName.set(name.toLowerCase(), values);
    }
  }

  get dn(): string {
    return this.entry.dn;
  }

  /** The first of `names` that has a value, with its values as text. */
  first(names: readonly string[]): { name: string; values: string[] } | undefined {
    for (const name of names) {
      const values = this.text(name);
      if (values.length > 0) return { name, values };
    }
    return undefined;
  }

  /** Every value of an attribute, as text. */
  text(name: string): string[] {
    const lower = name.toLowerCase();
    return (this.byName.get(lower) ?? []).map((value) => toText(lower, value)).filter((v) => v !== '');
  }

  /** Attribute names present on the entry, lower-cased (AD's `member;range=0-1499` included). */
  names(): string[] {
    return [...this.byName.keys()];
  }
}

function isBinary(lowerName: string): boolean {
  return GUID_ATTRIBUTES.has(lowerName) || SID_ATTRIBUTES.has(lowerName);
}

function toText(lowerName: string, value: RawValue): string {
  if (!isBinary(lowerName)) return Buffer.isBuffer(value) ? value.toString('base64') : value;
  // ldapts decodes bytes that happen to be valid UTF-8 unless asked not to: encoding them again
  // gives the same bytes back.
  const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8');
  if (GUID_ATTRIBUTES.has(lowerName) && bytes.length === 16) return guidString(bytes);
  if (SID_ATTRIBUTES.has(lowerName) && bytes.length >= 8) return sidString(bytes);
  return bytes.toString('base64');
}

/**
 * A GUID's 16 bytes (MS-DTYP §2.3.4: Data1, Data2 and Data3 little-endian, Data4 as is) as the
 * canonical lower-case string, e.g. `f81d4fae-7dec-11d0-a765-00a0c91e6bf6`.
 */
export function guidString(bytes: Buffer): string {
  const hex = (from: number, to: number) => bytes.subarray(from, to).toString('hex');
  const reversed = (from: number, to: number) =>
    Buffer.from(bytes.subarray(from, to)).reverse().toString('hex');
  return `${reversed(0, 4)}-${reversed(4, 6)}-${reversed(6, 8)}-${hex(8, 10)}-${hex(10, 16)}`;
}

/** A SID (MS-DTYP §2.4.2): revision, 48-bit big-endian authority, 32-bit little-endian sub-authorities. */
export function sidString(bytes: Buffer): string {
  const revision = bytes.readUInt8(0);
  const count = bytes.readUInt8(1);
  const authority = bytes.readUIntBE(2, 6);
  const parts = [`S-${revision}-${authority}`];
  for (let i = 0; i < count && 8 + 4 * i + 4 <= bytes.length; i++)
    parts.push(String(bytes.readUInt32LE(8 + 4 * i)));
  return parts.join('-');
}

/**
 * Whether a user is active, from the attribute mapped to `active`: Active Directory's
 * `userAccountControl` is disabled when its ACCOUNTDISABLE bit (0x2) is set; any other attribute is
 * read as an LDAP Boolean (`TRUE`/`FALSE`, also `1`/`0`, `yes`/`no`). Other values are returned as
 * they are, for the snapshot validation to report.
 */
export function activeValue(name: string, value: string): boolean | string {
  if (name.toLowerCase() === 'useraccountcontrol') {
    const flags = Number(value);
    return Number.isInteger(flags) ? (flags & 0x2) === 0 : value;
  }
  const lower = value.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(lower)) return true;
  if (['false', '0', 'no'].includes(lower)) return false;
  return value;
}
