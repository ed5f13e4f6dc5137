// agentEpic: the commands of agentlog/redux carried out as a redux-observable epic, which is also
// what the middleware runs. Each command is handled once (by its `meta.request_id`), never an
// agent event or a fact, so actions replayed from the DevTools call no model or tool. A reply is an
// Observable cancelled by `takeUntil` of its session's stop (an unfollow lets it run); every refusal becomes an
// `agentlog/refused` action, never a throw or an unhandled rejection.
// Concurrency: mergeMap (sessions and their commands run side by side; the source orders them).
import { catchError, defer, EMPTY, filter, finalize, from, ignoreElements, map, merge, mergeMap, Observable, of, share, Subject, takeUntil, throwError } from 'rxjs'
import { messageOf } from '../core/errors.js'
import { eventAction, followed, followFailed, isCommand, refused, unfollowed, type AnyAction, type CommandAction, type FactAction, type Refusal } from './actions.js'
import { copyJson } from './freeze.js'
import { sessionSources, type SourceOptions } from './options.js'
import type { SessionSource } from './sources.js'

/** An epic as redux-observable runs it: `(action$, state$) => output$`. */
export type AgentEpic = (action$: Observable<AnyAction>, state$?: unknown, dependencies?: unknown) => Observable<FactAction>

/** What anything thrown becomes in a refusal: its code when it has one (AgentError, a server's coded answer). */
export const refusalOf = (error: unknown): Refusal => {
  const code = typeof (error as { code?: unknown } | null)?.code === 'string' ? (error as { code: string }).code : 'INTERNAL'
  const name = error instanceof Error ? error.name : 'Error'
  return { name, code, message: messageOf(error) }
}

const unsupported = (command: CommandAction): Refusal => ({
  name: 'AgentError',
  code: 'UNSUPPORTED',
  message: `This session's source has no ${command.type.slice('agentlog/'.length)}(); it is supported by agents that implement it.`,
})

const notFollowed = (command: CommandAction): Refusal => ({
  name: 'AgentError',
  code: 'NOT_FOLLOWED',
  message: `Session ${JSON.stringify(command.payload.session_id)} is not followed; dispatch agentActions.follow({ session_id }) first (${command.type} was not carried out).`,
})

export const agentEpic = (options: SourceOptions): AgentEpic => {
  const sources = sessionSources(options)
  return (action$) => defer(() => {
    /** The followed sessions: their source, and what ends their follow (an unfollow). */
    const live = new Map<string, { source: SessionSource; unfollowed: Subject<void> }>()
    const handled = new Set<string>()
    const fresh = (action: CommandAction) => {
      const id = action.meta?.request_id
      if (typeof id !== 'string') return true
      if (handled.has(id)) return false
      handled.add(id)
      return true
    }
    const commands$ = action$.pipe(filter(isCommand), filter(fresh), share())
    const of$ = (session_id: string, ...types: string[]) => commands$.pipe(filter((c) => c.payload.session_id === session_id && types.includes(c.type)))

    const follow = (session_id: string): Observable<FactAction> => {
      if (live.has(session_id)) return EMPTY
      let source: SessionSource
      try {
        source = sources.open(session_id)
      } catch (error) {
        return of(followFailed(session_id, refusalOf(error)))
      }
      const entry = { source, unfollowed: new Subject<void>() }
      live.set(session_id, entry)
      const drop = () => {
        if (live.get(session_id) !== entry) return
        live.delete(session_id)
        source.close?.()
      }
      return defer(() => source.follow()).pipe(
        map((item): FactAction => ('state' in item ? followed(session_id, copyJson(item.state)) : eventAction(session_id, copyJson(item.event)))),
        takeUntil(entry.unfollowed),
        catchError((error) => {
          drop()
          return of(followFailed(session_id, refusalOf(error)))
        }),
        finalize(drop),
      )
    }

    /** Runs a command's call; its refusal (a throw or a rejection) becomes an error action. */
    const attempt = (command: CommandAction, call: () => Promise<unknown> | Observable<never>): Observable<FactAction> =>
      defer(() => from(call())).pipe(ignoreElements(), catchError((error) => of(refused(command, refusalOf(error)))))

    const handle = (command: CommandAction): Observable<FactAction> => {
      const { session_id } = command.payload
      if (command.type === 'agentlog/follow') return follow(session_id)
      const entry = live.get(session_id)
      if (!entry) return of(refused(command, notFollowed(command)))
      const { source } = entry
      switch (command.type) {
        case 'agentlog/unfollow':
          live.delete(session_id)
          entry.unfollowed.next()
          source.close?.()
          return of(unfollowed(session_id))
        case 'agentlog/send':
          // A reply outlives an unfollow; a remoteAgent closed by the unfollow ends its stream with CLOSED, which is no refusal.
          return attempt(command, () => source.reply(command.payload.input).pipe(
            takeUntil(of$(session_id, 'agentlog/stop')),
            catchError((error) => (!live.has(session_id) && refusalOf(error).code === 'CLOSED' ? EMPTY : throwError(() => error))),
          ))
        case 'agentlog/stop':
          return attempt(command, () => source.interrupt(command.payload.when === undefined ? undefined : { when: command.payload.when }))
        case 'agentlog/approve':
          return attempt(command, () => source.approve(command.payload.call, command.payload.input))
        case 'agentlog/deny':
          return attempt(command, () => source.deny(command.payload.call, command.payload.reason))
        case 'agentlog/submitResult':
          return attempt(command, () => source.submitResult(command.payload.call, command.payload.result))
        case 'agentlog/steer':
        case 'agentlog/queue': {
          const talk = command.type === 'agentlog/steer' ? source.steer : source.queue
          if (!talk) return of(refused(command, unsupported(command)))
          const { input } = command.payload
          return attempt(command, () => talk(input))
        }
        default:
          return of(refused(command, { name: 'AgentError', code: 'INVALID_INPUT', message: `Unknown command ${(command as AnyAction).type}.` }))
      }
    }

    return merge(from(sources.initial).pipe(mergeMap(follow)), commands$.pipe(mergeMap(handle)))
  })
}
