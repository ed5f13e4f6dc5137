// Terminal safety for everything the CLI prints that a model, a tool or a log file controls:
// control characters (C0, DEL, C1, line and paragraph separators, bidirectional overrides) are
// shown as visible escapes (\r, \n, \t, \u001b), so no string can move the cursor, clear a line,
// recolour the terminal or reorder what the user reads.
import type { Io } from './command.js'

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const CONTROL_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

const escapeOne = (c: string) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

/** `text` with every control character escaped visibly (newlines too: the result is one line). */
export const escapeControls = (text: string): string => text.replace(CONTROL, escapeOne)

/** `text` with control characters escaped but its newlines kept (multi-line output such as JSON). */
export const escapeControlsKeepLines = (text: string): string => text.replace(CONTROL_BUT_NEWLINE, escapeOne)

/** Text for the terminal as it streams (a model's answer): newlines and tabs kept, every other control character escaped. */
export const escapeControlsKeepLayout = (text: string): string => text.replace(CONTROL_BUT_LAYOUT, escapeOne)

/** An Io whose every line is escaped: for output made of one-line entries. */
export const lineSafe = (io: Io): Io => ({ out: (text) => io.out(escapeControls(text)), err: (text) => io.err(escapeControls(text)) })
