// A schema failure said the way AgentScope says it (its tools' input is checked with Python's
// jsonschema): `'temp' is a required property`, `'hot' is not of type 'number'`, the value written
// as Python writes it. Built from the first zod issue and the arguments it was about; an issue of
// another kind keeps zod's own message, prefixed with the path it is at.
type Issue = { code: string; path: PropertyKey[]; message: string; expected?: unknown }

const JSON_TYPES: Record<string, string> = { number: 'number', int: 'integer', string: 'string', boolean: 'boolean', object: 'object', array: 'array', null: 'null' }

export const schemaIssueText = (issue: Issue | undefined, json: unknown): string => {
  if (!issue) return 'the input does not match the schema'
  const parent = valueAt(json, issue.path.slice(0, -1))
  const key = issue.path.at(-1)
  const value = issue.path.length ? valueAt(json, issue.path) : json
  if (issue.code === 'invalid_type' && key !== undefined && value === undefined && isObject(parent) && !(String(key) in parent))
    return `${pythonRepr(String(key))} is a required property`
  const type = typeof issue.expected === 'string' ? JSON_TYPES[issue.expected] : undefined
  if (issue.code === 'invalid_type' && type && value !== undefined) return `${pythonRepr(value)} is not of type ${pythonRepr(type)}`
  return `${issue.path.length ? `${issue.path.map(String).join('.')}: ` : ''}${issue.message}`
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

const valueAt = (json: unknown, path: PropertyKey[]): unknown => {
  let value = json
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key as string] : undefined
  return value
}

/** A JSON value as Python's repr() writes it (what jsonschema's messages show). */
export const pythonRepr = (value: unknown): string => {
  if (value === null) return 'None'
  if (value === true) return 'True'
  if (value === false) return 'False'
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'"
    const escaped = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t')
    return quote + (quote === "'" ? escaped.replace(/'/g, "\\'") : escaped) + quote
  }
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`
  if (typeof value === 'object') return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pythonRepr(k)}: ${pythonRepr(v)}`).join(', ')}}`
  return String(value)
}
