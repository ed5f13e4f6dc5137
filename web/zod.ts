// Imported first by the page: zod 4 never tries `new Function` (its JIT for object schemas) in the
// page, whose Content-Security-Policy forbids eval; each such attempt would log a CSP error.
import { z } from 'zod'

z.config({ jitless: true })
