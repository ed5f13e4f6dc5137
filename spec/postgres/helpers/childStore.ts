// The store a child process opens: the spec's schema on DATABASE_URL, already migrated by the parent.
import { postgresStore } from '../../../lib/postgres.js'

export const open = (url: string, schema: string) => {
  const pgStore = postgresStore({ connectionString: url, schema })
  return { store: pgStore, pgStore }
}
