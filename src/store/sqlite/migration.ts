/** One numbered schema migration: its SQL runs once, in its own transaction (migrations.ts). */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
