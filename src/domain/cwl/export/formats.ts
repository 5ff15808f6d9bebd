/**
 * GeneDock format names (`fastq`, `bam`, `fq.gz`) as CWL format URIs. A name with an EDAM equivalent becomes EDAM's
 * term, as the CWL tools of the field write them (`edam:format_1930` for FASTQ), so that exported tools take the
 * files other CWL users have annotated; a compressed variant (`fastq.gz`) takes the term of what it holds, as
 * is usual in CWL (EDAM has no term for compressed FASTQ). Any other name is kept as it is, in gdflow's namespace:
 * `gdflow:tgz`, that is https://gdflow.dev/formats#tgz (an identifier: nothing is fetched from it). The EDAM terms
 * are those of the EDAM ontology the CWL conformance suite ships (tests/EDAM.owl), each checked against its label.
 */

export const EDAM_NAMESPACE = 'http://edamontology.org/';
export const GDFLOW_FORMAT_NAMESPACE = 'https://gdflow.dev/formats#';

/** The prefixes the exported documents use, for their `$namespaces`. */
export const FORMAT_PREFIXES = { edam: EDAM_NAMESPACE, gdflow: GDFLOW_FORMAT_NAMESPACE } as const;

const EDAM_TERMS: Record<string, string> = {
  fastq: 'format_1930', // FASTQ
  fq: 'format_1930',
  fasta: 'format_1929', // FASTA
  fa: 'format_1929',
  fna: 'format_1929',
  fas: 'format_1929',
  sam: 'format_2573', // SAM
  bam: 'format_2572', // BAM
  cram: 'format_3462', // CRAM
  bai: 'format_3327', // BAI
  vcf: 'format_3016', // VCF
  bcf: 'format_3020', // BCF
  bed: 'format_3003', // BED
  bedgraph: 'format_3583', // bedgraph
  bigwig: 'format_3006', // bigWig
  bw: 'format_3006',
  bigbed: 'format_3004', // bigBed
  bb: 'format_3004',
  wig: 'format_3005', // WIG
  gff: 'format_2305', // GFF
  gff3: 'format_1975', // GFF3
  gtf: 'format_2306', // GTF
  '2bit': 'format_3009', // 2bit
  sff: 'format_3284', // SFF
  mzml: 'format_3244', // mzML
  json: 'format_3464', // JSON
  txt: 'format_2330', // Textual format
  text: 'format_2330',
  html: 'format_2331', // HTML
  xml: 'format_2332', // XML
  tsv: 'format_3475', // TSV
  pdf: 'format_3508', // PDF
  png: 'format_3603', // png
  xlsx: 'format_3620', // xlsx
  hdf5: 'format_3590', // hdf5
  h5: 'format_3590',
};

const COMPRESSED = /\.(gz|bgz|bz2)$/i;

/** The CWL format of a GeneDock format name, with its prefix (`edam:format_2572`, `gdflow:tgz`). */
export function formatTerm(name: string): string {
  const lower = name.trim().toLowerCase();
  const term = EDAM_TERMS[lower] ?? EDAM_TERMS[lower.replace(COMPRESSED, '')];
  return term !== undefined ? `edam:${term}` : `gdflow:${encodeURIComponent(name.trim())}`;
}

/** The CWL formats of a list of names, each once, in their order. */
export const formatTerms = (names: string[]): string[] => [...new Set(names.map(formatTerm))];

/** The full URI of a prefixed term, as a job file or an output object writes it. */
export function formatUri(term: string): string {
  const [prefix, rest] = [term.slice(0, term.indexOf(':')), term.slice(term.indexOf(':') + 1)];
  return prefix in FORMAT_PREFIXES ? FORMAT_PREFIXES[prefix as keyof typeof FORMAT_PREFIXES] + rest : term;
}

/**
 * The GeneDock format name of a CWL format URI, the way back of formatTerm: an EDAM term gdflow knows is its first
 * name (`format_1930` is `fastq`), a gdflow term its name; any other URI its last segment (`format_9999`, `format1`).
 */
export function formatName(uri: string): string {
  if (uri.startsWith(EDAM_NAMESPACE)) {
    const term = uri.slice(EDAM_NAMESPACE.length);
    const name = Object.keys(EDAM_TERMS).find((key) => EDAM_TERMS[key] === term);
    if (name !== undefined) return name;
  }
  if (uri.startsWith(GDFLOW_FORMAT_NAMESPACE)) return decodeURIComponent(uri.slice(GDFLOW_FORMAT_NAMESPACE.length));
  return uri.split(/[#/]/).filter(Boolean).pop() ?? uri;
}
