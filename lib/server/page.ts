// Two routes the web page needs beyond the native API, served when createServer is given `page`:
// GET /sessions/:id/tools (each tool's name, description, input JSON Schema and whether it is
// external: the approval form checks edited arguments against it) and POST /sessions/:id/fork
// { seq } (a new session going on from the state after event `seq`, made by timeTravel's fork, with
// its sub-agent sessions forked as they were then: lib/hub/forkTree.ts).
import { checkKnownKeys } from '../core/strictOptions.js'
import { AgentError, describe } from '../core/errors.js'
import type { HubOptions, SessionStore } from '../hub/types.js'
import { forkTree } from '../hub/forkTree.js'
import { json, readJson } from './http.js'

export interface PageRoutesOptions {
  /** Where sessions live (the hub's store): a fork is written there. */
  store: SessionStore
  /** The agent options of a session (the hub's `agent`). */
  agent: HubOptions['agent']
}

export const sessionTools = async (page: PageRoutesOptions, session_id: string, headers: Record<string, string>): Promise<Response> => {
  await page.store.info(session_id)
  const { tools = [] } = await page.agent(session_id)
  return json({ tools: tools.map((t) => ({ ...t.spec, external: t.external })) }, 200, headers)
}

export const forkSession = async (page: PageRoutesOptions, session_id: string, request: Request, bodyBytes: number, headers: Record<string, string>): Promise<Response> => {
  const body = (await readJson(request, bodyBytes)) as { seq?: unknown } | null
  checkKnownKeys('The body of POST /sessions/:id/fork', body, ['seq'], 'INVALID_INPUT')
  const seq = body?.seq
  const { last_seq } = await page.store.info(session_id)
  if (!Number.isInteger(seq) || (seq as number) < 0 || (seq as number) > last_seq)
    throw new AgentError('INVALID_INPUT', `POST /sessions/:id/fork needs { "seq": n } with n from 0 to ${last_seq} (the session's last event); received ${describe(seq)}.`)
  // The session's sub-agent sessions are forked with it, as they were at that point (lib/hub/forkTree.ts).
  return json({ session_id: await forkTree(page.store, session_id, seq as number, page.agent) }, 201, headers)
}
