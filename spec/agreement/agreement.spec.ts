// One list of scenarios (scenarios.ts) run against a local agent, a hub session and a remoteAgent
// over a real server on 127.0.0.1 (issue 22): they must observe the same events, values, errors and
// states. spec/postgres/agreement.spec.ts runs the same list with the sessions on PostgreSQL.
import { hubDriver, localDriver, remoteDriver } from './drivers.js'
import { agree } from './scenarios.js'

agree('agreement: local agent, hub session, remoteAgent', [localDriver(), hubDriver(), remoteDriver()])
