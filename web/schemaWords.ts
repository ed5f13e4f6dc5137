// Zod's issues in words for people: the first problem of each field only, a format said by its
// name ("must be an email address"), a bound said as a bound, and never a regular expression.
// Used where the page checks what a person typed against a tool's schema.

interface Issue {
  code: string
  path: PropertyKey[]
  message: string
  format?: string
  expected?: string
  origin?: string
  minimum?: number | bigint
  maximum?: number | bigint
  values?: unknown[]
  keys?: string[]
}

const FORMATS: Record<string, string> = {
  email: 'an email address', url: 'a URL', uri: 'a URL', uuid: 'a UUID', guid: 'a UUID', datetime: 'a date and time',
  'date-time': 'a date and time', date: 'a date', time: 'a time', ipv4: 'an IPv4 address', ipv6: 'an IPv6 address',
}

const a = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`)

const bound = (issue: Issue, word: 'least' | 'most'): string => {
  const n = String(word === 'least' ? issue.minimum : issue.maximum)
  if (issue.origin === 'string') return `must be at ${word} ${n} characters long`
  if (issue.origin === 'array') return `must have at ${word} ${n} items`
  return `must be at ${word} ${n}`
}

/** One issue in words, without its field. */
export const issueWords = (issue: Issue): string => {
  switch (issue.code) {
    case 'invalid_format': return issue.format && FORMATS[issue.format] ? `must be ${FORMATS[issue.format]}` : 'does not have the expected form'
    case 'invalid_type': return /received undefined$/.test(issue.message) ? 'is missing' : `must be ${a(issue.expected ?? 'value')}`
    case 'too_small': return bound(issue, 'least')
    case 'too_big': return bound(issue, 'most')
    case 'invalid_value': return issue.values?.length ? `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}` : 'is not an allowed value'
    case 'unrecognized_keys': return `has fields the tool does not take: ${(issue.keys ?? []).join(', ')}`
    default: return issue.message.replace(/\/\^.*\$\//, 'the expected form')
  }
}

/** Every field's first problem, each once: "to must be an email address; subject is missing". */
export const issuesInWords = (issues: Issue[]): string => {
  const seen = new Set<string>()
  const lines: string[] = []
  for (const issue of issues) {
    const field = issue.path.length ? issue.path.map(String).join('.') : 'The arguments'
    if (seen.has(field)) continue
    seen.add(field)
    lines.push(`${field} ${issueWords(issue)}`)
  }
  return lines.join('; ')
}
