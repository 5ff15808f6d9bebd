/**
 * The WDL 1.1 specification tests (../shared/wdl-1.1) that gdflow does not pass, each with why: the driver (main.ts)
 * fails the run on a failure not listed here and on a listed test that passes, so this list is always the truth.
 * docs/wdl.md shows it (generated: `node dist/scripts/wdl/main.js --known-failures-markdown`; test/wdl/known-failures
 * .test.ts checks the two agree). Keys are test ids; a must-fail test is `<id> (must fail)` (some ids name two tests).
 *
 * - `example`: the example cannot pass as written on any engine; the reason says what the spec text (1.1.1, the
 *   revision the tests were extracted from) requires against what the test expects.
 * - `dependency`: needs what this machine does not have (a GPU, the internet, images from a registry).
 * - `not-done`: a feature gdflow does not have yet.
 */
export type FailureCategory = 'example' | 'dependency' | 'not-done';

export interface KnownFailure {
  readonly category: FailureCategory;
  readonly reason: string;
}

/** The key of a test in this list. */
export const testKey = (test: { readonly id: string; readonly fail: boolean }): string => (test.fail ? `${test.id} (must fail)` : test.id);

const FOR_LOOP = "bash does not expand `for i in 1..~{n}` (that needs `{1..n}` or `seq`): the loop runs once with i='1..n'";
const WC_L = '`wc -l FILE` prints `N FILE`, which read_int() cannot read (spec read_int: the file holds one line, an integer)';

export const KNOWN_FAILURES: Readonly<Record<string, KnownFailure>> = {
  all_return_codes: {
    category: 'example',
    reason: "the test's target `all_return_codes` names no task: the document's only task is `multi_return_code_task` (with that target it passes)",
  },
  allow_nested: {
    category: 'example',
    reason:
      "`call lib.repeat as repeat2` lacks the required input `i` and the inputs do not give `allow_nested.repeat2.i` (the test lists it as an expected output); `repeat`'s loop also runs once: " +
      FOR_LOOP,
  },
  array_map_equality: {
    category: 'example',
    reason: '`[1, 2, 3] == [2, 1, 3]` is false, as the comment above it says ("different orders are not equal"), but the test expects `is_false1` to be true',
  },
  call_example: { category: 'example', reason: `\`repeat\` should print i lines, but ${FOR_LOOP}` },
  call_imported: {
    category: 'example',
    reason: "the test's target `call_imported` names nothing: the document's workflow is `call_imported_task` (with that target it passes)",
  },
  echo_stderr: {
    category: 'example',
    reason:
      '`File message = read_string(stderr())` makes a File named "hello world", which does not exist: spec "Task Outputs": "All file outputs are required to exist, otherwise the task will fail"',
  },
  echo_stdout: {
    category: 'example',
    reason:
      '`File message = read_string(stdout())` makes a File named "hello world", which does not exist: spec "Task Outputs": "All file outputs are required to exist, otherwise the task will fail"',
  },
  ex_paramter_meta: {
    category: 'example',
    reason: '`String result = stdout()` is the path of the stdout file, not its text, and `wc -l FILE` prints `3 FILE`, not the expected "3"',
  },
  flags: { category: 'example', reason: '`num_matches` is declared `String` (its value the String "2"), but the test expects the Int 2' },
  gatk_haplotype_caller: {
    category: 'dependency',
    reason: 'its inputs are on ftp:// and https:// (the NA12878 BAM, the GRCh38 reference) and it runs the broadinstitute/gatk image: no internet here',
  },
  gen_files: { category: 'example', reason: `the test expects 2 files from the loop, but ${FOR_LOOP}, so it writes one file` },
  glob: { category: 'example', reason: `the test expects 3 files from the loop, but ${FOR_LOOP}, so \`outfiles[num_files-1]\` is out of bounds` },
  hello_parallel: {
    category: 'example',
    reason:
      'its inputs name `/greetings.txt` (no such file) and `greetings2.txt` (not in data/), it expects `hello.all_matches` for the workflow `hello_parallel`, and `hi_pal` is in no data file',
  },
  hisat2: {
    category: 'example',
    reason:
      'the inputs name `hisat2.index_tar_gz`, which the task does not declare (it has `index`); it would also download the GRCh38 index and SRA reads (no internet here)',
  },
  import_structs: {
    category: 'example',
    reason:
      '`import "person_struct_task.wdl"` without `as` makes the namespace `person_struct_task` (spec "Import Statements"), but the workflow calls `person_struct.greet_person`',
  },
  main: { category: 'example', reason: `the call \`foobar\` (other.wdl) runs \`wc -l ~{infile}\` into read_int(): ${WC_L}` },
  map_to_struct: {
    category: 'example',
    reason:
      'a map literal\'s keys are expressions (`a` is "beware"), and spec "Type Coercion" requires a Map\'s keys to match the struct\'s members to coerce it to `Words`: the coercion is an error, yet the test expects a `Words` with members beware/key/lookup',
  },
  multi_mount_points: {
    category: 'not-done',
    reason:
      'asks for disks mounted at `/mnt/outputs` and `/mnt/tmp`; this driver runs on the host executor, which has no sandbox and so cannot provide mount ' +
      'points (the bwrap and podman executors bind a directory of the job\'s at each), and, as WDL 1.1 "disks" requires of an engine that cannot ' +
      'guarantee them ("immediately fail the task prior to instantiating the command"), gdflow fails the call before its command (docs/wdl.md, "Disks")',
  },
  nested_access: {
    category: 'example',
    reason: 'the struct declares `Map[String, Float] data`, but the inputs give `"name": "Pinky"`, which is no Float',
  },
  nested_scatter: {
    category: 'example',
    reason:
      '`honorifics[name_and_index.right % 2]` is `honorifics[0]` = "Wizard" for Bilbo, but the test expects "Mr. Bilbo" (the honorifics are swapped in the expected output)',
  },
  non_empty_optional: {
    category: 'example',
    reason: '`Array[Int]+? nonempty3 = None` is undefined, which JSON writes as null (spec "JSON Output Format"), but the test expects `[]`',
  },
  optional_output: { category: 'example', reason: '`if ~{make_example2}; do ... fi` is a bash syntax error (`if` takes `then`): the command exits 2' },
  other: { category: 'example', reason: `\`foobar\` runs \`wc -l ~{infile}\` into read_int(): ${WC_L}` },
  outputs: {
    category: 'example',
    reason: 'the inputs give `outputs.write_outstr`, which the task does not declare (spec "JSON Input Format": one member for each input)',
  },
  person_struct: {
    category: 'example',
    reason: "the test's target is the task `greet_person` but its inputs are named `person_struct.person`, a name the document does not have",
  },
  placeholders: {
    category: 'example',
    reason: 'the inputs give `placeholders.input`, but the workflow declares `instr` (a required input then left without a value)',
  },
  python_strip: {
    category: 'example',
    reason:
      'after the common indentation is removed, the Python lines inside `<<CODE` stay indented by two spaces (IndentationError); the expected output is named `python_strip`, not `python_strip.lines`',
  },
  read_map: { category: 'example', reason: 'the command writes the map to `map_file` but the output reads `read_map(stdout())`, which is empty' },
  relative_and_absolute: {
    category: 'example',
    reason: '`File something = read_string(...)` makes a File named "something", which does not exist (spec "Task Outputs": file outputs must exist)',
  },
  runtime_container: {
    category: 'dependency',
    reason:
      "needs the image ubuntu:focal (no registry here; the host executor reads the host's /etc/*-release); also `is_true` is declared `String` while the test expects the Boolean true",
  },
  serde_map_tsv: {
    category: 'example',
    reason: '`paste -s` writes its two-column map to stdout, but the output reads `read_map("lines")`, a file of single words',
  },
  serde_pair: {
    category: 'example',
    reason:
      '`tail -n 2` of cities.txt (Houston, Chicago, Piscataway) gives its last two lines, so the pair is ("Chicago", "Piscataway"), but the test expects {"Houston": "Chicago"}, the first two',
  },
  serialize_array_delim: {
    category: 'example',
    reason:
      "the task's output is named `heads`, but the test expects `serialize_array_delim.strings`; also, `args = squote(...)` is a declaration, so its quotes are part of the values, which gdflow passes as words (`head: cannot open '-n1'`): only quotes written inside the placeholder are shell syntax (docs/wdl.md)",
  },
  serialize_map: { category: 'example', reason: `grep2 builds its arguments with \`for i in 1..~{n}\`: ${FOR_LOOP}, and indexes bash arrays from 1` },
  sum: {
    category: 'example',
    reason: '`printf ~{sep(" ", ints)} | awk ...` is `printf 0 1 2 | awk ...`: printf prints only its format, "0", so the total is 0, not the expected 3',
  },
  task_outputs: { category: 'example', reason: `\`count_lines\` runs \`wc -l ~{write_lines(array)}\` into read_int(): ${WC_L}` },
  test_after: { category: 'example', reason: `\`repeat\` (call_example.wdl) should print i lines, but ${FOR_LOOP}` },
  test_ceil: { category: 'example', reason: '`all_true` is declared `Array[Boolean]` (its value `[true, true]`), but the test expects the Boolean true' },
  test_floor: { category: 'example', reason: '`all_true` is declared `Array[Boolean]` (its value `[true, true]`), but the test expects the Boolean true' },
  test_gpu: { category: 'dependency', reason: 'needs a GPU (`gpu: true`); this machine has none, and gdflow fails such a call clearly' },
  test_hints: { category: 'example', reason: `the task runs \`wc -l ~{foo}\` into read_int(): ${WC_L}` },
  test_max: {
    category: 'example',
    reason: '`if value1 > value2 then value1 else value2` and `max(value1, value2)` are both the larger value, 2.0, but the test expects 1.0 for both',
  },
  test_object: { category: 'example', reason: '`Int i = f.a` reads `f`, which nothing declares (the object is `obj`)' },
  test_placeholders: {
    category: 'example',
    reason:
      '`printf ~{sep(" ", read_lines(infile))}` is `printf hello world hi_world hello nurse`: printf prints its first argument, its format, "hello" (gdflow: each item is one word, "hello world"), not the whole line the test expects',
  },
  test_prefix: { category: 'example', reason: 'the output is named `env_prefixed`, but the test expects `test_prefix.env1_prefixed`' },
  test_range: {
    category: 'example',
    reason: "the inputs give `test_range.n`, but the workflow's input is `i` (and `n * n` of range(5) is [0,1,4,9,16], not the expected [0,2,4,6,8])",
  },
  test_round: { category: 'example', reason: '`all_true` is declared `Array[Boolean]` (its value `[true, true]`), but the test expects the Boolean true' },
  test_struct: {
    category: 'example',
    reason:
      'the output is named `john`, but the test expects `test_struct.person` (`has_account` reads the output `john`, which spec "Workflow Outputs" allows)',
  },
  test_sub: {
    category: 'example',
    reason:
      'POSIX `[:alpha:]` outside a bracket expression is the set `:alph`, and " when\\n" has no space after it, so `choco4` cannot be "I 4444 chocolate 4444\\nit\'s late"',
  },
  test_suffix: { category: 'example', reason: '`suffix(".txt ", env1)` appends ".txt " with its space, but the test expects no trailing space' },
  workflow_with_comments: { category: 'example', reason: '`cat ~{number * 2}` runs `cat 2`, which has no file 2 to read (exit 1); `echo` was meant' },
  write_json: {
    category: 'example',
    reason: "the Python script prints `list(d.keys())`, Python's repr `['key1', 'key2']`, which is not JSON for read_json()",
  },
};

const CATEGORY_TEXT: Record<FailureCategory, string> = {
  example: 'the example itself',
  dependency: 'a dependency this machine lacks',
  'not-done': 'not done yet in gdflow',
};

/** The list as a Markdown table (docs/wdl.md holds this text between its markers). */
export function knownFailuresMarkdown(): string {
  const rows = Object.entries(KNOWN_FAILURES).map(
    ([key, { category, reason }]) => `| \`${key}\` | ${CATEGORY_TEXT[category]} | ${reason.replace(/\|/g, '\\|')} |`,
  );
  return ['| test | cause | reason |', '| --- | --- | --- |', ...rows, ''].join('\n');
}
