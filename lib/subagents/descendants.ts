// The events of every descendant of an agent in this process, as they happen, each a copy tagged
// with the session it belongs to (`metadata.session_id`); children started later join the stream.
// Only agents whose reply has not ended are followed (a finished child has nothing more to say).
import { Observable, Subscription } from 'rxjs'
import type { AgentEvent } from '../core/events.js'
import { childLinked$, childLinks, type ChildLink, type TreeMember } from './links.js'

export const descendantEvents$ = (root: TreeMember): Observable<AgentEvent> =>
  new Observable<AgentEvent>((subscriber) => {
    const subscriptions = new Subscription()
    const follow = (parent: TreeMember) => {
      const add = ({ agent }: ChildLink) => {
        const { session_id } = agent
        subscriptions.add(agent.events$.subscribe((event) => subscriber.next({ ...event, metadata: { ...event.metadata, session_id } })))
        follow(agent)
      }
      for (const link of childLinks(parent)) if (link.agent.state.status !== 'idle') add(link)
      subscriptions.add(childLinked$(parent).subscribe(add))
    }
    follow(root)
    return subscriptions
  })
