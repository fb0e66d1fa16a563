/**
 * A command name is a file stem under a `commands/` folder. It may not climb out of that folder:
 * no `/`, `\`, `..`, NUL, and no leading `.` (which would also reach hidden files).
 */
export function isValidCommandName(name: string): boolean {
  return (
    name.length > 0 &&
    !name.includes('/') &&
    !name.includes('\\') &&
    !name.includes('..') &&
    !name.includes('\0') &&
    !name.startsWith('.')
  );
}
