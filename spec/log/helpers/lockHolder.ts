// A child that opens a file log for writing, prints "ready", and holds it (and its lock) until its
// stdin ends; then it closes the log and exits. Usage: lockHolder.ts LOG_PATH
import { fileLog } from '../../../lib/stores/file/index.js'

const log = fileLog(process.argv[2])
process.stdout.write('ready\n')
process.stdin.resume()
process.stdin.on('end', () => void log.close().then(() => process.exit(0)))
