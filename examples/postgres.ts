// Sessions on PostgreSQL (npm install pg, and npm install --save-dev @types/pg in TypeScript): every process that runs this hub can serve any session;
// a request for a session another process owns is routed to it. DATABASE_URL names the server.
import pg from 'pg'
import { createHub, say, scriptedModel } from 'agentlog'
import { postgresStore } from 'agentlog/postgres'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' })
const store = postgresStore({ pool, schema: 'agentlog_example' })
await store.migrate() // creates or upgrades the tables; safe from several processes at once

const hub = createHub({ store, agent: () => ({ name: 'Friday', model: scriptedModel([say('Stored in PostgreSQL.')], { onExhausted: 'repeat-last' }) }) })
const { session_id } = await hub.create({ metadata: { user: 'ann' } })
const reply = await hub.session(session_id).reply('Hello!') // resolves once its REPLY_END is committed
console.log(reply.content, (await hub.session(session_id).state()).seq)
await hub.delete(session_id)
await hub.close() // releases the leases; the pool is yours to end
await pool.end()
