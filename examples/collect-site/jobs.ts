// The collection site's job postings: a deterministic list built from a seed, so a test knows the
// whole truth in advance. Data only: how the postings are laid out over pages is listing.ts.

/** One job posting of the collection site. */
export interface JobPosting {
  /** Stable for a given seed and position, such as `job-0007`; the detail page is `/job/<id>`. */
  readonly id: string;
  readonly title: string;
  readonly company: string;
  /** As the page shows it, such as `$92,000 - $118,000 a year`. */
  readonly salary: string;
  readonly location: string;
  /** The detail page's absolute URL, as a browser resolves the listing's link. */
  readonly detailUrl: string;
}

const levels = ['Junior', '', 'Senior', 'Staff', 'Lead'] as const;
const roles = [
  'Frontend Engineer',
  'Backend Engineer',
  'Data Analyst',
  'Product Designer',
  'Site Reliability Engineer',
  'QA Engineer',
  'Technical Writer',
  'Product Manager',
  'Machine Learning Engineer',
  'Support Specialist',
  'Security Engineer',
  'Mobile Developer',
] as const;
const companyStarts = ['Blue', 'North', 'Bright', 'Quiet', 'Iron', 'Silver', 'Maple', 'Harbor', 'Cedar', 'Summit'] as const;
const companyEnds = ['Labs', 'Systems', 'Works', 'Analytics', 'Foods', 'Logistics', 'Health', 'Studio'] as const;
const locations = ['Berlin', 'Lisbon', 'Toronto', 'Austin, TX', 'Remote', 'London', 'Warsaw', 'Melbourne', 'Dublin', 'Seattle, WA'] as const;

/** mulberry32: a small seeded generator, so the same seed always deals the same postings. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const dollars = (amount: number): string => `$${amount.toLocaleString('en-US')}`;

/**
 * `count` postings dealt from `seed`, in listing order; ids are `job-0001` onwards. Titles repeat
 * (a board has many "Senior Backend Engineer" posts), ids never do.
 */
export function jobPostings(count: number, seed: number, origin: string): JobPosting[] {
  const random = seededRandom(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const digits = Math.max(4, String(count).length);
  return Array.from({ length: count }, (_, index) => {
    const id = `job-${String(index + 1).padStart(digits, '0')}`;
    const level = pick(levels);
    const role = pick(roles);
    const low = 40_000 + Math.floor(random() * 120) * 1_000;
    const high = low + 10_000 + Math.floor(random() * 40) * 1_000;
    return {
      id,
      title: level ? `${level} ${role}` : role,
      company: `${pick(companyStarts)} ${pick(companyEnds)}`,
      salary: `${dollars(low)} - ${dollars(high)} a year`,
      location: pick(locations),
      detailUrl: new URL(`/job/${id}`, origin).href,
    };
  });
}
