// Reading every page of the website list without being fooled: follow `last_page` (not a short page), check
// that the pages agree with each other and with `total`, and stop a listing that would never end. Pure.

/** The most pages one listing reads (1,000,000 websites at 100 a page; 100,000 where a service caps at 10). */
export const MAX_PAGES = 10_000;
/** `last_page` growing on this many pages in a row is a listing that runs away from its reader. */
const GROWTH_LIMIT = 3;

/** What one page said about the listing, beside its records' ids. */
export interface PageFacts {
  /** The page asked for (1-based). */
  page: number;
  ids: readonly number[];
  currentPage?: number;
  lastPage?: number;
  total?: number;
  perPage?: number;
  /** Whether the page links to a next one (`links.next`, `next_page_url`), when it says. */
  hasNext?: boolean;
}

/** What to do with a page: which of its records are new, and whether another page follows. */
export interface PageVerdict {
  /** Indexes into the page's records that were not read before. */
  fresh: number[];
  next: boolean;
}

/** The listing does not end (a page repeated, last_page running away, past what total allows or MAX_PAGES). */
export class EndlessListing extends Error {}

export class ListingTracker {
  private readonly seen = new Map<number, number>();
  private readonly problems: string[] = [];
  private lastPage: number | undefined;
  private total: number | undefined;
  private pageSize: number | undefined;
  private growth: number[] = [];

  constructor(private readonly requestedPerPage: number) {}

  get count(): number {
    return this.seen.size;
  }

  /**
   * The last page the pages so far say there is, within what their total allows and MAX_PAGES; undefined while
   * none said (for reading ahead: no page past it is asked for before the pages say so).
   */
  get expectedLastPage(): number | undefined {
    if (this.lastPage === undefined) return undefined;
    const allowed =
      this.total === undefined || this.pageSize === undefined
        ? MAX_PAGES
        : Math.max(1, Math.ceil(this.total / this.pageSize));
    return Math.min(this.lastPage, allowed, MAX_PAGES);
  }

  /** Takes one page in order; throws EndlessListing when reading on would never end. */
  take(facts: PageFacts): PageVerdict {
    const fresh = this.fresh(facts);
    if (facts.currentPage !== undefined && facts.currentPage !== facts.page) {
      this.problems.push(`page ${facts.page} was answered as page ${facts.currentPage}`);
    }
    this.noteLastPage(facts);
    this.noteTotal(facts);
    if (this.pageSize === undefined && (facts.perPage ?? facts.ids.length) > 0) {
      this.pageSize = facts.perPage ?? facts.ids.length;
    }
    const next = this.wantsNext(facts);
    if (next) this.checkBounds(facts.page + 1);
    if (!next) this.finish();
    return { fresh, next };
  }

  /** Undefined when the pages agreed and the count read matches the service's total; else why not. */
  problem(): string | undefined {
    return this.problems.length > 0 ? this.problems.join("; ") : undefined;
  }

  private fresh(facts: PageFacts): number[] {
    const repeated = facts.ids.filter((id) => this.seen.has(id));
    if (facts.ids.length > 0 && repeated.length === facts.ids.length) {
      const earlier = this.seen.get(facts.ids[0]!)!;
      throw new EndlessListing(`page ${facts.page} repeats page ${earlier} (the same websites again)`);
    }
    if (repeated.length > 0) {
      const shown = repeated.slice(0, 5).join(", ");
      this.problems.push(
        `${repeated.length} website${repeated.length === 1 ? "" : "s"} (id ${shown}${repeated.length > 5 ? ", …" : ""}) appeared on two pages: the list changed while it was read`,
      );
    }
    const fresh: number[] = [];
    const twice: number[] = [];
    facts.ids.forEach((id, index) => {
      if (this.seen.get(id) === facts.page) twice.push(id);
      if (this.seen.has(id)) return;
      this.seen.set(id, facts.page);
      fresh.push(index);
    });
    // Two records with one id on one page: only the first is kept, so the listing cannot be trusted to be whole.
    if (twice.length > 0) {
      const shown = twice.slice(0, 5).join(", ");
      this.problems.push(
        `page ${facts.page} holds ${twice.length} more website${twice.length === 1 ? "" : "s"} with an id already on it (id ${shown}${twice.length > 5 ? ", …" : ""})`,
      );
    }
    return fresh;
  }

  private noteLastPage(facts: PageFacts): void {
    if (facts.lastPage === undefined) return;
    const before = this.lastPage;
    this.lastPage = facts.lastPage;
    if (before === undefined || before === facts.lastPage) {
      this.growth = [];
      return;
    }
    this.problems.push(`last_page changed from ${before} to ${facts.lastPage} while the list was read`);
    this.growth = facts.lastPage > before ? [...this.growth, facts.lastPage] : [];
    if (this.growth.length >= GROWTH_LIMIT) {
      throw new EndlessListing(
        `last_page grows with every page (${this.growth.join(", ")} on the last ${GROWTH_LIMIT} pages): the listing would never end`,
      );
    }
  }

  private noteTotal(facts: PageFacts): void {
    if (facts.total === undefined) return;
    if (this.total !== undefined && this.total !== facts.total) {
      this.problems.push(`total changed from ${this.total} to ${facts.total} while the list was read`);
    }
    this.total = facts.total;
  }

  /**
   * With last_page: until it is reached. Without (Laravel's simple paginator): while the page links to a next
   * one, else until a page shorter than a full one — full by the service's own per_page when it says, as a
   * service may cap per_page below what was asked for (the old contract).
   */
  private wantsNext(facts: PageFacts): boolean {
    if (this.lastPage === undefined) {
      if (facts.ids.length === 0) return false;
      if (facts.hasNext !== undefined) return facts.hasNext;
      const full = facts.perPage !== undefined && facts.perPage > 0 ? facts.perPage : this.requestedPerPage;
      return facts.ids.length >= full;
    }
    if (facts.page >= this.lastPage) return false;
    if (facts.ids.length === 0) {
      this.problems.push(`page ${facts.page} is empty although last_page is ${this.lastPage}`);
      return false;
    }
    return true;
  }

  private checkBounds(next: number): void {
    if (next > MAX_PAGES) {
      throw new EndlessListing(`the listing did not end after ${MAX_PAGES} pages (the most topsync reads)`);
    }
    if (this.total === undefined || this.pageSize === undefined) return;
    const allowed = Math.max(1, Math.ceil(this.total / this.pageSize));
    if (next > allowed) {
      throw new EndlessListing(
        `the service goes on to page ${next}, but its total of ${this.total} websites at ${this.pageSize} a page fills only ${allowed}`,
      );
    }
  }

  private finish(): void {
    if (this.total !== undefined && this.count !== this.total) {
      this.problems.push(`${this.count} websites were read but the service's total is ${this.total}`);
    }
  }
}
