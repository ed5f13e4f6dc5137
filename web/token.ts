// The access token of a server started with `--token`: taken from the address once (?token=T),
// kept in this tab's sessionStorage, and removed from the address with history.replaceState so it
// never lands in the browser's history. A token typed after a 401 is kept the same way.
const KEY = 'agentlog.token'

const stored = (): string | undefined => {
  try {
    return sessionStorage.getItem(KEY) ?? undefined
  } catch {
    return undefined // storage is disabled: the token lives only as long as the page
  }
}

export const keepToken = (token: string): void => {
  try {
    sessionStorage.setItem(KEY, token)
  } catch {
    // storage is disabled: nothing to keep it in
  }
}

/** The token for this tab: the one in the address (which is then removed from it), else the kept one. */
export const takeToken = (): string | undefined => {
  const url = new URL(location.href)
  const given = url.searchParams.get('token')
  if (given === null) return stored()
  url.searchParams.delete('token')
  history.replaceState(history.state, '', url.pathname + url.search + url.hash)
  if (given) keepToken(given)
  return given || stored()
}
