// Two routes the web page needs beyond the native API, served when createServer is given `page`:
// GET /sessions/:id/tools (each tool's name, description, input JSON Schema and whether it is
// external: the approval form checks edited arguments against it) and POST /sessions/:id/fork
// { seq } (a new session going on from the state after event `seq`, made by timeTravel's fork).
import { AgentError, describe } from '../errors.js'
import type { HubOptions, SessionStore } from '../hub/types.js'
import { fork } from '../timeTravel.js'
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
  const events = await page.store.read(session_id)
  const seq = body?.seq
  if (!Number.isInteger(seq) || (seq as number) < 0 || (seq as number) > events.length)
    throw new AgentError('INVALID_INPUT', `POST /sessions/:id/fork needs { "seq": n } with n from 0 to ${events.length} (the session's last event); received ${describe(seq)}.`)
  const info = await page.store.create({ metadata: { forked_from: session_id, from_seq: seq } })
  const log = await page.store.open(info.session_id)
  const agent = fork(events, seq as number, { ...(await page.agent(info.session_id)), log, session_id: info.session_id })
  await agent.close()
  return json({ session_id: info.session_id }, 201, headers)
}
