// Which stopped requests the Executor reports: the first of each host in a step, so a page that
// fires hundreds of requests at a denied host does not flood the events or the model. Pure: no browser.

/** Remembers the hosts of the requests the URL policy stopped in the current step. */
export class BlockedRequestFilter {
  private step: number | undefined;
  private readonly hosts = new Set<string>();

  /**
   * Whether a stopped request to `url` in `step` is the first of its host (its hostname, any
   * port and scheme) in that step; a new step starts afresh.
   */
  take(step: number, url: string): boolean {
    if (step !== this.step) {
      this.step = step;
      this.hosts.clear();
    }
    const host = hostOf(url);
    if (this.hosts.has(host)) return false;
    this.hosts.add(host);
    return true;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || url;
  } catch {
    return url;
  }
}
