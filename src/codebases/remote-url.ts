/** `scheme://userinfo@` anywhere in a text (a URL, or a git message quoting one). */
const USERINFO = /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^\s/?#@]+)@/g;

/**
 * A remote URL, or a git message quoting one, as Cairn stores, logs and answers it: without the
 * credentials a user may have put in the URL (`https://<token>@github.com/o/r.git`,
 * `https://user:password@host/o/r`). Over HTTP the user name itself may be the token, so the
 * whole user part goes; an `ssh://` URL keeps its user (`git`) and loses only a password.
 * scp-like remotes (`git@host:o/r.git`) and local paths carry no secret and stay as they are.
 * Git keeps the URL it cloned with in the clone's own `.git/config`, as for any clone.
 */
export function withoutCredentials(text: string): string {
  return text.replace(USERINFO, (_whole, scheme: string, userinfo: string) =>
    /^(git\+)?ssh:\/\//i.test(scheme) ? `${scheme}${userinfo.split(':')[0]}@` : scheme,
  );
}
