// The system clock's ids: a random per-process prefix, then a counter in base 36 (built from
// character codes, so the carries are the clock's own arithmetic); unique, URL-safe; idOrder tells
// which of two ids one system clock made first, and nothing for ids of different clocks.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { counterClock, createSystemClock, idOrder } from '../../lib/core/clock.js'
import { checkSessionId } from '../../lib/stores/sessions.js'

const test = suite('lib/clock')

test('ids are the prefix then 0, 1, ..., z, 10, ... in base 36, across every carry up to three digits', () => {
  const clock = createSystemClock()
  const first = clock.id()
  const prefix = first.slice(0, -1)
  assert.is(first, `${prefix}0`)
  assert.match(prefix, /^[A-Za-z0-9_-]{12}$/)
  for (let n = 1; n <= 36 ** 3 + 40; n++) {
    const id = clock.id()
    if (id !== `${prefix}${n.toString(36)}`) assert.unreachable(`id ${n} is ${id}`)
  }
})

test('two clocks have different prefixes', () => {
  assert.is.not(createSystemClock().id(), createSystemClock().id())
})

test("every id is a valid session id (it names a sub-agent's session): the random prefix starts with a letter or digit", () => {
  // One nanoid in 32 starts with "_" or "-": 500 clocks meet one with near certainty.
  for (let i = 0; i < 500; i++) {
    const id = createSystemClock().id()
    assert.not.throws(() => checkSessionId(id), `${id} is a valid session id`)
  }
})

test("idOrder orders one system clock's ids as they were made, across every carry up to three digits", () => {
  const clock = createSystemClock()
  let previous = clock.id()
  assert.is(idOrder(previous, previous), 0)
  for (let n = 1; n <= 36 ** 3 + 40; n++) {
    const id = clock.id()
    if (!(idOrder(previous, id)! < 0 && idOrder(id, previous)! > 0)) assert.unreachable(`id ${n} (${id}) after ${previous}`)
    previous = id
  }
})

test('idOrder tells nothing of ids from two clocks, or of ids of another shape', () => {
  const [a, b] = [createSystemClock().id(), createSystemClock().id()]
  assert.is(idOrder(a, b), undefined)
  const custom = counterClock('abcdefghijklmnop')
  assert.is(idOrder(custom.id(), custom.id()), undefined)
  assert.is(idOrder(`${a.slice(0, 12)}0a`, `${a.slice(0, 12)}1`), undefined, 'a counter with a leading zero is no system id')
  assert.is(idOrder('short', 'shorter'), undefined)
})

test.run()
