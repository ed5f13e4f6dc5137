// The context the formatting specs send: two rounds of parallel tool calls (results interleaved,
// one with an image, one failed), signed and unsigned thinking, a denied call, a hint, and a call
// cut mid-JSON by an interrupt with its interrupted result.
import type { Msg } from '../../../lib/core/messages.js'
import { call, DENIED, hint, image, INTERRUPTED, msg, result, text, thinking } from './msgs.js'

export const HINT = '<system-reminder>The user prefers morning flights.</system-reminder>'
export const PARTIAL = '{"from": "PAR", "to": "BE'

export const travelContext = (): Msg[] => [
  msg('system', [text('You are a travel assistant.')]),
  msg('user', [text('Weather in Paris and Berlin?')]),
  msg('assistant', [
    thinking('Two cities: call both.', 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h'),
    text('Let me check both cities.'),
    call('call_1', 'get_weather', '{"city": "Paris"}'),
    call('call_2', 'get_weather', '{"city":"Berlin"}'),
    result('call_2', 'get_weather', '12°C, rain'),
    result('call_1', 'get_weather', [text('18°C, sun'), image('iVBORw0KGgo=')]),
    thinking('Also the local time.'),
    call('call_3', 'get_time', '{"tz": "Europe/Paris"}'),
    call('call_4', 'get_time', '{"tz": "Europe/Berlin"}'),
    result('call_3', 'get_time', '14:05'),
    result('call_4', 'get_time', 'Error: tz database unavailable', 'error'),
    text('Paris: 18°C and sunny; Berlin: 12°C and rainy.'),
  ]),
  msg('user', [text('Book me a flight to Berlin, and clean up my files.')]),
  msg('assistant', [
    call('call_5', 'delete_files', '{"path": "/home"}'),
    result('call_5', 'delete_files', DENIED, 'denied'),
    hint(HINT),
    text('I will not delete files. Booking now.'),
    call('call_6', 'book_flight', PARTIAL),
    result('call_6', 'book_flight', INTERRUPTED, 'interrupted'),
  ]),
  msg('user', [text('Cancel that. Thanks!')]),
]
