import { fingerprint, simulateLatency } from './simulation';

/** A web page found by a search. */
export interface Source {
  title: string;
  url: string;
}

/** A stand-in web search: two deterministic hits per query, after 150–300 ms. */
export async function webSearch(query: string, signal?: AbortSignal): Promise<Source[]> {
  await simulateLatency(`search ${query}`, signal);
  return [1, 2].map((n) => ({
    title: `${query} (result ${n})`,
    url: `https://example.org/${fingerprint(`${query}#${n}`)}`,
  }));
}

/** A stand-in page fetch: a deterministic paragraph for the page, after 150–300 ms. */
export async function fetchPage(source: Source, signal?: AbortSignal): Promise<string> {
  await simulateLatency(`fetch ${source.url}`, signal);
  return `"${source.title}" makes point ${fingerprint(source.url)}.`;
}
