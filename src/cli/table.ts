/** A plain text table: a header row, a rule, right-aligned numbers. */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): string {
  const cells = [header, ...rows].map((row) => row.map((cell) => String(cell)));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[], raw: readonly (string | number)[] | undefined) =>
    row
      .map((cell, i) =>
        typeof raw?.[i] === 'number' ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  return [line(cells[0] ?? [], undefined), rule, ...cells.slice(1).map((row, n) => line(row, rows[n]))].join(
    '\n',
  );
}
