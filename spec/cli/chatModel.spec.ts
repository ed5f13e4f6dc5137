// Which model `agentlog chat` talks to (issue 10 item 10): one rule, flags before the environment,
// checked at start with a one-line error naming what is missing; and a provider's 404 names the URL
// and hints at a missing /v1 (item 11).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { chooseProvider, notFoundHint, resolveChatModel } from '../../lib/cli/chatModel.js'
import { chatPiped, chatServer, killChats } from './helpers/chat.js'

const test = suite('cli/chatModel')
test.after.each(killChats)

const resolve = (choice: Parameters<typeof resolveChatModel>[0], env: Record<string, string>) => {
  const resolved = resolveChatModel(choice, env)
  return 'error' in resolved ? resolved.error : resolved.describe
}

test('the provider: the flag, else OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_BASE_URL, ANTHROPIC_BASE_URL, --base-url, in that order', () => {
  assert.is(chooseProvider({ provider: 'anthropic' }, { OPENAI_API_KEY: 'k' }), 'anthropic')
  assert.is(chooseProvider({}, { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' }), 'openai')
  assert.is(chooseProvider({ baseURL: 'http://x/v1' }, { ANTHROPIC_API_KEY: 'k' }), 'anthropic', 'only an Anthropic key and --base-url: Anthropic')
  assert.is(chooseProvider({}, { ANTHROPIC_API_KEY: 'k', OPENAI_BASE_URL: 'http://x/v1' }), 'anthropic')
  assert.is(chooseProvider({}, { OPENAI_BASE_URL: 'http://x/v1' }), 'openai')
  assert.is(chooseProvider({}, { ANTHROPIC_BASE_URL: 'http://x' }), 'anthropic')
  assert.is(chooseProvider({ baseURL: 'http://x/v1' }, {}), 'openai')
  assert.is(chooseProvider({}, { OPENAI_API_KEY: '' }), undefined, 'an empty variable is not set')
})

test('the base URL: --base-url, else the provider\'s variable, else its own; the model: --model, else AGENTLOG_MODEL', () => {
  assert.is(resolve({ baseURL: 'http://flag/v1' }, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://env' }), 'Anthropic claude-sonnet-4-5 at http://flag/v1')
  assert.is(resolve({}, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://env' }), 'Anthropic claude-sonnet-4-5 at http://env')
  assert.is(resolve({}, { ANTHROPIC_API_KEY: 'k', AGENTLOG_MODEL: 'claude-x' }), 'Anthropic claude-x at https://api.anthropic.com')
  assert.is(resolve({ model: 'm' }, { OPENAI_API_KEY: 'k', AGENTLOG_MODEL: 'other' }), 'm at https://api.openai.com/v1')
  assert.is(resolve({}, { OPENAI_BASE_URL: 'http://localhost:11434/v1' }), 'gpt-4o-mini at http://localhost:11434/v1', 'a local server needs no key')
})

test('what is missing is named: Anthropic without a key (even with --base-url), OpenAI\'s own API without a key, an unknown provider', () => {
  assert.match(resolve({ provider: 'anthropic', baseURL: 'http://x' }, {}), /^Anthropic needs a key: set ANTHROPIC_API_KEY/)
  assert.match(resolve({ provider: 'openai' }, {}), /^OpenAI needs a key: set OPENAI_API_KEY/)
  assert.match(resolve({ provider: 'mistral' }, { OPENAI_API_KEY: 'k' }), /unknown provider "mistral"/)
  assert.match(resolve({}, {}), /^no model configured/)
})

test('the binary checks at start: --provider anthropic --base-url without a key is one line and exit 2', async () => {
  const chat = chatPiped(['--provider', 'anthropic', '--base-url', 'http://127.0.0.1:9'])
  chat.child.stdin.end()
  assert.is(await chat.exited, 2)
  assert.equal(chat.out.stderr.trim().split('\n'), ['agentlog chat: Anthropic needs a key: set ANTHROPIC_API_KEY (the base URL is http://127.0.0.1:9).'])
})

test('the binary: with only ANTHROPIC_API_KEY, --base-url talks Anthropic to that URL', async () => {
  const server = await chatServer(() => ({ status: 404 }))
  const base = server.url.replace(/\/v1$/, '')
  const chat = chatPiped(['--base-url', base], { ANTHROPIC_API_KEY: 'sk-ant-test' })
  chat.type('hello\n')
  await chat.waitFor(() => chat.out.stderr.includes('404'), 'the error')
  chat.child.stdin.end()
  assert.is(await chat.exited, 0)
  assert.equal(server.paths, ['/v1/messages'])
  assert.match(chat.out.stderr, new RegExp(`POST ${base}/v1/messages answered 404`))
  assert.not.match(chat.out.stderr, /usually end in \/v1/, 'no /v1 hint for Anthropic, whose path has it')
  server.close()
})

test('a 404 from an OpenAI-compatible server names the URL and hints at a missing /v1', async () => {
  const server = await chatServer(() => ({ status: 404 }))
  const base = server.url.replace(/\/v1$/, '')
  const chat = chatPiped([], { OPENAI_BASE_URL: base })
  chat.type('hello\n')
  await chat.waitFor(() => chat.out.stderr.includes('usually end in /v1'), 'the hint')
  chat.child.stdin.end()
  assert.is(await chat.exited, 0)
  assert.match(chat.out.stderr, new RegExp(`the model failed \\(invalid_request\\).*404.*\\n.*POST ${base}/chat/completions answered 404 \\(not found\\)`))
  assert.is(notFoundHint('OpenAI API error 404: x', 'http://h/v1/chat/completions')?.includes('/v1 ('), false, 'a URL with /v1 gets no /v1 hint')
  assert.is(notFoundHint('OpenAI API error 500: x', 'http://h/chat/completions'), null)
  server.close()
})

test.run()
