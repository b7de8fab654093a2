import type { Me } from '../api/types';

/*
 * Who is signed in, as the app knows it: part of the entry (plain fetch, no query cache), so the
 * routes behind sign-in can ask before any of their code is fetched.
 *
 * Each sign-in and sign-out starts a new generation. An answer to a request sent in an earlier
 * generation (a 401 of a session check that was still under way when the sign-in succeeded)
 * speaks of a session that no longer exists and changes nothing.
 */
let generation = 0;
let known: Promise<Me | null> | null = null;
let signedOut = false;

/** The current generation; requests remember it when they are sent. */
export function sessionGeneration(): number {
  return generation;
}

/** Whether the app already knows that nobody is signed in (a 401 seen, or signed out). */
export function isSignedOut(): boolean {
  return signedOut;
}

async function askServer(): Promise<Me | null> {
  const response = await fetch('/api/me', { headers: { accept: 'application/json' } });
  if (response.status === 401) return null;
  if (!response.ok) throw new Error(`GET /api/me answered ${response.status}`);
  return (await response.json()) as Me;
}

/**
 * The signed-in user, or null when nobody is signed in: one request per generation, shared by
 * every caller. A sign-in or sign-out while the request is under way answers with the newer state.
 */
export async function currentSession(): Promise<Me | null> {
  for (;;) {
    const asked = generation;
    if (!known) {
      const request = askServer();
      known = request;
      // A failed request (no network) is asked again by the next caller.
      request.catch(() => {
        if (known === request) known = null;
      });
    }
    const me = await known;
    if (asked === generation) {
      signedOut = me === null;
      return me;
    }
  }
}

/**
 * The sign-in succeeded: its own answer is the session, no further request. `sameGeneration`:
 * a fresh answer of the same session (the user's name changed), not a new sign-in.
 */
export function markSignedIn(me: Me, { sameGeneration = false } = {}): void {
  if (!sameGeneration) generation += 1;
  signedOut = false;
  known = Promise.resolve(me);
}

/** Signed out, or the session ended (a 401 of the current generation). */
export function markSignedOut(): void {
  generation += 1;
  signedOut = true;
  known = Promise.resolve(null);
}
