// The scripted demo model of `agentlog chat --scripted` and `agentlog serve --scripted`: canned
// answers that stream slowly enough to watch and to stop, no key and no network. With tools, each
// message shows one feature, in order (or the one the message names): a tool that asks for approval,
// an external tool a person answers, a tool that returns an image, a sub-agent whose report streams
// into its call, a slow tool to stop; then a long answer to stop. What it says fits where it runs: the page's buttons, or the terminal's keys.
// DEMOS is the list of steps: a new demo is one entry here and its tool in ./demo/tools.ts.
import type { ToolResultBlock } from '../core/messages.js'
import type { ModelRequest } from '../models/model.js'
import { callTool, say, scriptedModel, think, type ScriptStep } from '../models/scripted.js'

export type Surface = 'page' | 'terminal'

export interface Demo {
  /** The tool the step calls. */
  tool: string
  /** Words of a user's message that ask for this step. */
  asks: RegExp
  input: Record<string, unknown>
  /** What the model says before the call. */
  intro: Record<Surface, string>
  /** What the model says about the call's result. */
  after: (result: ToolResultBlock, surface: Surface) => string
  /** A step whose call was stopped is shown again next time, unless stopping it is the point. */
  doneWhenStopped?: boolean
  /** Call this tool next in the same reply (instead of ending it). */
  then?: string
}

const outcome = (result: ToolResultBlock) => (result.state === 'denied' ? 'denied' : result.state === 'success' ? 'ran' : result.state)
const NEXT = 'Send another message for the next demo.'
const buttons = (surface: Surface, page: string, terminal: string) => (surface === 'page' ? page : terminal)

const ASK: Demo = {
  tool: 'send_email', asks: /\b(approve|approval|email|deny|edit)\b/i,
  input: { to: 'ann@example.com', subject: 'Lunch on Friday?', body: 'Hi Ann, shall we have lunch on Friday at noon?' },
  intro: {
    page: 'First, a tool that asks before it runs: I would like to send an email. Approve it, Deny it (with a reason if you like), or Edit the arguments first: the page checks them against the tool\'s schema (try an address without @).',
    terminal: 'First, a tool that asks before it runs: I would like to send an email. Answer y, n, or e to edit its arguments.',
  },
  after: (result, surface) => result.state === 'denied'
    ? `You denied the email, so nothing was sent. ${NEXT}`
    : `The email tool ${outcome(result)} (a demo: nothing left this machine). ${NEXT}`,
}

const COMMAND: Demo = {
  tool: 'run_command', asks: /\b(command|shell)\b/i,
  input: { command: 'echo hello from the scripted model' },
  intro: { page: '', terminal: 'Now a shell command. It asks you first: answer y, n, or e to edit it.' },
  after: (result) => {
    const how = result.state === 'success' ? 'The command ran; its output is above.'
      : result.state === 'denied' ? 'You denied the command, so I did not run it.'
        : `The command ended with state "${result.state}".`
    return `${how} Ask me anything else: the next message shows a tool that runs outside the agent, then an image, then a sub-agent, then a slow tool to stop with Ctrl-C.`
  },
}

const CLOCK: Demo = {
  tool: 'current_time', asks: /\b(time|clock)\b/i, input: {},
  intro: { page: 'Let me look at the clock first.', terminal: 'Let me look at the clock first.' },
  after: () => '', then: 'run_command',
}

const EXTERNAL: Demo = {
  tool: 'pick_date', asks: /\b(external|date|form)\b/i, input: { purpose: 'lunch with Ann' },
  intro: {
    page: 'This tool runs outside the agent: you are the tool. Type a date in the result form under its card and press Submit result. The reply waits for you, across a reload too.',
    terminal: 'This tool runs outside the agent: you are the tool. Type a date as its result at the prompt.',
  },
  after: (result, surface) => `${result.state === 'success' ? `You picked: ${text(result)}.` : `The date was not picked (${result.state}).`} ${NEXT}`,
}

const IMAGE: Demo = {
  tool: 'draw_chart', asks: /\b(image|chart|draw|picture)\b/i, input: { title: 'Replies per day' },
  intro: { page: 'Tools can return images too:', terminal: 'Tools can return images too:' },
  after: (_, surface) => `${buttons(surface, 'The image is in the tool\'s card above.', 'The terminal names its type; the web page (agentlog serve --scripted) shows the image.')} ${NEXT}`,
}

const RESEARCH: Demo = {
  tool: 'research', asks: /\b(research|sub-?agents?|delegate)\b/i, input: { task: 'How do sub-agents stop?' },
  intro: {
    page: 'Now a sub-agent: I hand a research task to the Researcher, an agent with its own session and log. Its report streams into the research card; expand the card to watch its conversation, and press Stop while it works: the whole tree stops, the Researcher first.',
    terminal: 'Now a sub-agent: I hand a research task to the Researcher, an agent with its own session and log. Its report streams in under the call; Ctrl-C while it works stops the whole tree, the Researcher first.',
  },
  after: (result) => `${result.state === 'success' ? 'The Researcher reported back; its report is the research call\'s result.' : `The Researcher ended with state "${result.state}".`} ${NEXT}`,
}

const SLOW: Demo = {
  tool: 'count_slowly', asks: /\b(slow|stop|count)\b/i, input: { to: 120 }, doneWhenStopped: true,
  intro: {
    page: 'A slow tool now: it counts for a minute. Press Stop (or Esc) whenever you like: the tool is stopped at once, and what it printed so far is kept.',
    terminal: 'A slow tool now: it counts for a minute. Press Ctrl-C whenever you like: the tool is stopped at once, and what it printed so far is kept.',
  },
  after: (_, surface) => `It counted to the end. ${NEXT}`,
}

/** The demo's steps in order: where it runs decides the first ones (the chat's own tools, or the email). */
export const DEMOS: Record<Surface, Demo[]> = {
  page: [ASK, EXTERNAL, IMAGE, RESEARCH, SLOW],
  terminal: [CLOCK, COMMAND, EXTERNAL, IMAGE, RESEARCH, SLOW],
}

const LONG: Record<Surface, string> = {
  terminal: 'This is a long answer that streams word by word so that you can press Ctrl-C in the middle of it and see the reply stop at once, with the partial text kept in the conversation.',
  page: 'This is a long answer that streams word by word so that you can press Stop (or Esc) in the middle of it and see the reply stop at once, with the partial text kept in the conversation. Then open the Timeline: every event of the log is there; click one to see the conversation as it was then, and Fork from here to go on from that point in a new session.',
}


const text = (result: ToolResultBlock) => (typeof result.output === 'string' ? result.output : result.output.map((b) => (b.type === 'text' ? b.text : '')).join('')).trim()

/** A tool call id unique in the log: the conversation's length at the call. */
const idFor = (request: ModelRequest, name: string) => `${name}-${request.messages.reduce((n, m) => n + m.content.length, 0)}`

const results = (request: ModelRequest): ToolResultBlock[] =>
  request.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'))

/** The reply so far ends with a tool result (the model speaks about it), or undefined. */
const lastResult = (request: ModelRequest) => {
  const reply = request.messages.at(-1)
  const last = reply?.role === 'assistant' ? reply.content.at(-1) : undefined
  return last?.type === 'tool_result' ? last : undefined
}

const lastUserText = (request: ModelRequest): string => {
  const user = [...request.messages].reverse().find((m) => m.role === 'user')
  return user ? user.content.map((b) => (b.type === 'text' ? b.text : '')).join('') : ''
}

const call = (request: ModelRequest, demo: Demo, surface: Surface, prefix = ''): ScriptStep[] =>
  [...say(`${prefix}${demo.intro[surface]}`, 12), ...callTool(idFor(request, demo.tool), demo.tool, demo.input, 3)]

/** One turn of the demo with tools: speak about a result, or start the step the message asks for (else the next one not done). */
const demoTurn = (surface: Surface, demos: Demo[]) => (request: ModelRequest): ScriptStep[] => {
  const result = lastResult(request)
  const step = result && demos.find((d) => d.tool === result.name)
  if (result && step) {
    const then = step.then && demos.find((d) => d.tool === step.then)
    if (then) return call(request, then, surface)
    return say(step.after(result, surface), 12)
  }
  const done = (demo: Demo) => results(request).some((r) => r.name === demo.tool && (demo.doneWhenStopped || r.state !== 'interrupted'))
  const greeting = request.messages.some((m) => m.role === 'assistant') ? '' : 'Hello! I am the scripted model (a demo: canned answers, no key, no network). '
  const wanted = demos.find((d) => d.asks.test(lastUserText(request))) ?? demos.find((d) => !done(d))
  if (wanted) return call(request, wanted, surface, greeting)
  return say(`${greeting}${LONG[surface]}`, 30)
}

export const scriptedChatModel = ({ tools, surface = 'terminal' }: { tools: boolean; surface?: Surface }) => {
  const greeting = [...think('A greeting; answer briefly.', 2), ...say(`Hello! I am the scripted model: I stream canned answers, so you can try streaming and ${buttons(surface, 'Stop', 'Ctrl-C')} without a key.`, 12)]
  const turns = tools
    ? [demoTurn(surface, DEMOS[surface])]
    : [greeting, [...say(LONG[surface], 30)], [...say('Still here. Every answer after this one repeats it.', 6)]]
  return scriptedModel(turns, { chunkDelayMs: 60, onExhausted: 'repeat-last', name: 'scripted' })
}
