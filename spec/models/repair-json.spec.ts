import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { repairToolInput } from '../../lib/models/repair-json.js'

const test = suite('models/repair-json')

test('valid object JSON is kept byte for byte', () => {
  assert.equal(repairToolInput('{ "a" : [1, {"b": null}] }'), { text: '{ "a" : [1, {"b": null}] }', value: { a: [1, { b: null }] } })
})

test('an open string value and open brackets are closed', () => {
  assert.equal(repairToolInput('{"q": "say \\"hi').value, { q: 'say "hi' })
  assert.equal(repairToolInput('{"a": {"b": [1, 2').value, { a: { b: [1, 2] } })
  assert.equal(repairToolInput('{"a": "x\\u00').value, { a: 'x' })
  assert.equal(repairToolInput('{"a": "x\\').value, { a: 'x' })
})

test('a dangling key, colon, comma or partial literal is dropped', () => {
  assert.equal(repairToolInput('{"a": 1, "b').value, { a: 1 })
  assert.equal(repairToolInput('{"a": 1, "b":').value, { a: 1 })
  assert.equal(repairToolInput('{"a": 1,').value, { a: 1 })
  assert.equal(repairToolInput('{"a": 1, "b": tr').value, { a: 1 })
  assert.equal(repairToolInput('{"a": 1, "b": 2.').value, { a: 1 })
})

test('the repaired text is the JSON of the repaired value', () => {
  assert.equal(repairToolInput('{"city": "Par'), { text: '{"city":"Par"}', value: { city: 'Par' } })
})

test('what is no object after repair becomes {}', () => {
  for (const raw of ['', '   ', '[1, 2', '"text"', '42', 'null', 'garbage', '{"a" 1}']) {
    assert.equal(repairToolInput(raw), { text: '{}', value: {} }, raw)
  }
})

test.run()
