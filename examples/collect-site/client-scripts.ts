// The collection site's in-page scripts, as source text for an inline <script>: the "Load more"
// button and the infinite scroll. Plain browser JavaScript (no TypeScript, no imports), so the
// page runs it as written; esbuild's helpers would not exist in the page.

/**
 * The "Load more" button of `/more`: fetches the next batch from `/more/items?page=N`, appends its
 * postings to the list and moves the button on (the `x-next-page` header), or removes it after the
 * last batch. A failed batch leaves the button in place with a message, so it can be tried again.
 */
export const loadMoreScript = `
(() => {
  const list = document.getElementById('job-list');
  const button = document.getElementById('load-more');
  const status = document.getElementById('load-status');
  if (!list || !button || !status) return;
  let loading = false;
  button.addEventListener('click', async () => {
    if (loading) return;
    loading = true;
    button.disabled = true;
    status.textContent = 'Loading more jobs…';
    try {
      const response = await fetch('/more/items?page=' + encodeURIComponent(button.dataset.nextPage || ''));
      if (!response.ok) throw new Error('the server answered ' + response.status);
      list.insertAdjacentHTML('beforeend', await response.text());
      const next = response.headers.get('x-next-page');
      if (next) {
        button.dataset.nextPage = next;
        status.textContent = '';
      } else {
        button.remove();
        status.textContent = "That's all the jobs.";
      }
    } catch (error) {
      status.textContent = 'Could not load more jobs: ' + (error && error.message ? error.message : error) + '. Try again.';
    } finally {
      loading = false;
      button.disabled = false;
    }
  });
})();
`;

/**
 * The infinite scroll of `/scroll`: when the bottom of the page is within 300 pixels of the
 * viewport, fetches the next batch from `/scroll/items?page=N` and appends it; loads on while the
 * bottom stays in view (a short or empty batch). After a failure it stops and shows a "Retry"
 * button, so a broken batch is not requested again on every scroll event.
 */
export const infiniteScrollScript = `
(() => {
  const list = document.getElementById('job-list');
  const sentinel = document.getElementById('scroll-sentinel');
  if (!list || !sentinel) return;
  let loading = false;
  let failed = false;
  const nearBottom = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 300;
  const load = async () => {
    if (loading || failed || !sentinel.dataset.nextPage || !nearBottom()) return;
    loading = true;
    sentinel.textContent = 'Loading more jobs…';
    try {
      const response = await fetch('/scroll/items?page=' + encodeURIComponent(sentinel.dataset.nextPage));
      if (!response.ok) throw new Error('the server answered ' + response.status);
      list.insertAdjacentHTML('beforeend', await response.text());
      const next = response.headers.get('x-next-page');
      if (next) {
        sentinel.dataset.nextPage = next;
        sentinel.textContent = 'Scroll down for more jobs.';
      } else {
        delete sentinel.dataset.nextPage;
        sentinel.textContent = "That's all the jobs.";
      }
    } catch (error) {
      failed = true;
      sentinel.textContent = 'Could not load more jobs: ' + (error && error.message ? error.message : error) + '. ';
      const retry = document.createElement('button');
      retry.type = 'button';
      retry.textContent = 'Retry';
      retry.addEventListener('click', () => {
        failed = false;
        void load();
      });
      sentinel.append(retry);
    } finally {
      loading = false;
    }
    void load();
  };
  window.addEventListener('scroll', () => void load(), { passive: true });
  void load();
})();
`;
