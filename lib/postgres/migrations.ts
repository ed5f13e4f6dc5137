// Versioned migrations of the store's schema. `migrate` runs in one transaction under an advisory
// lock taken before anything else, so several processes may call it at once: one applies each
// missing version in order, the others then find it applied. A database whose schema is newer than
// this agentlog knows is refused (LOG_VERSION) rather than written.
import type { Pool } from 'pg'
import { AgentError } from '../core/errors.js'
import { unavailable } from './errors.js'
import { names, type Names } from './sql.js'

interface Migration { version: number; up: (n: Names) => string }

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    up: (n) => `
      CREATE TABLE ${n.sessions} (
        session_id text PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        status text NOT NULL DEFAULT 'idle' CHECK (status IN ('idle', 'running', 'paused')),
        last_seq bigint NOT NULL DEFAULT 0,
        metadata jsonb NOT NULL DEFAULT '{}'
      );
      -- body is the event's wire JSON as appended (text: jsonb would reorder keys and drop duplicates).
      CREATE TABLE ${n.events} (
        session_id text NOT NULL,
        seq bigint NOT NULL CHECK (seq >= 1),
        body text NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
      CREATE TABLE ${n.snapshots} (
        session_id text PRIMARY KEY,
        seq bigint NOT NULL,
        event_id text NOT NULL,
        state text NOT NULL,
        state_sha256 text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ${n.requests} (
        id bigserial PRIMARY KEY,
        session_id text NOT NULL,
        command text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        done boolean NOT NULL DEFAULT false,
        outcome text
      );
      CREATE INDEX requests_pending ON ${n.requests} (session_id, id) WHERE NOT done;
      CREATE FUNCTION ${n.schema}.notify_append() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify(TG_ARGV[0], NEW.session_id || ' ' || NEW.last_seq);
        RETURN NULL;
      END $$;
      CREATE TRIGGER notify_append AFTER UPDATE OF last_seq ON ${n.sessions}
        FOR EACH ROW WHEN (NEW.last_seq IS DISTINCT FROM OLD.last_seq)
        EXECUTE FUNCTION ${n.schema}.notify_append('${n.eventsChannel}');
    `,
  },
  {
    // When a request was answered, so answered rows its caller never read (it died) are removed.
    version: 2,
    up: (n) => `
      ALTER TABLE ${n.requests} ADD COLUMN answered_at timestamptz;
      CREATE INDEX requests_answered ON ${n.requests} (answered_at) WHERE done;
    `,
  },
  {
    // The session's last committed event when a request was made: the events it caused come after,
    // so an owner can tell whether a dead owner applied it already (see routing.ts).
    version: 3,
    up: (n) => `ALTER TABLE ${n.requests} ADD COLUMN after_seq bigint;`,
  },
  {
    // Paging in byte order whatever the database's collation (the listing's key), and the running
    // sessions a sweeper looks at for a dead owner (see store.ts orphans()).
    version: 4,
    up: (n) => `
      CREATE INDEX sessions_by_id_bytes ON ${n.sessions} (session_id COLLATE "C");
      CREATE INDEX sessions_running ON ${n.sessions} (session_id) WHERE status = 'running';
    `,
  },
  {
    // The listing's order: newest first, then the id in byte order whatever the collation (it
    // replaces the id order of version 4).
    version: 5,
    up: (n) => `
      CREATE INDEX sessions_newest_first ON ${n.sessions} (created_at DESC, session_id COLLATE "C");
      DROP INDEX ${n.schema}.sessions_by_id_bytes;
    `,
  },
]

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version

/** Creates or upgrades the store's tables in `schema`; returns the versions it applied. */
export const migrate = async (pool: Pool, schema: string): Promise<number[]> => {
  const n = names(schema)
  let client
  try {
    client = await pool.connect()
  } catch (error) {
    throw unavailable(error, 'connecting to migrate')
  }
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`agentlog:migrate:${schema}`])
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${n.schema}`)
    await client.query(`CREATE TABLE IF NOT EXISTS ${n.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`)
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${n.migrations} ORDER BY version`)
    const applied = new Set(rows.map((r) => r.version))
    const newest = Math.max(0, ...applied)
    if (newest > SCHEMA_VERSION)
      throw new AgentError('LOG_VERSION', `The schema ${schema} was migrated by a newer agentlog (version ${newest}; this one knows up to ${SCHEMA_VERSION}). Upgrade agentlog; nothing was changed.`, { schema, version: newest })
    const done: number[] = []
    for (const m of MIGRATIONS) {
      if (applied.has(m.version)) continue
      await client.query(m.up(n))
      await client.query(`INSERT INTO ${n.migrations} (version) VALUES ($1)`, [m.version])
      done.push(m.version)
    }
    await client.query('COMMIT')
    return done
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw unavailable(error, `migrating schema ${schema}`)
  } finally {
    client.release()
  }
}
