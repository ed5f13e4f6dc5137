// The agreement scenarios (spec/agreement/scenarios.ts) with the sessions on PostgreSQL, where a
// reply's end and pauses reach callers only once committed: a hub session and a remoteAgent over a
// real server must observe what a local agent does.
import { hubDriver, localDriver, remoteDriver } from '../agreement/drivers.js'
import { agree } from '../agreement/scenarios.js'
import { dropSchemas, freshStore, postgresAvailable } from './helpers/db.js'

if (postgresAvailable('spec/postgres/agreement.spec.ts')) {
  agree('postgres/agreement: local agent, hub session and remoteAgent on PostgreSQL', [
    localDriver(),
    hubDriver(() => freshStore(), 'hub session on PostgreSQL'),
    remoteDriver(() => freshStore(), 'remoteAgent over a server on PostgreSQL'),
  ], dropSchemas)
}
