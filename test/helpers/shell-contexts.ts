/**
 * The injection corpus: hostile parameter values, and the shell contexts a template may put a value in, with what a
 * program must receive there (or undefined where gdflow refuses the value). The renderer's tests run them through real
 * shells (test/domain/render.test.ts); the CWL export's through cwltool (test/e2e/cwl-export.test.ts).
 */

export const HOSTILE: string[] = [
  '$(touch PWNED)',
  '`touch PWNED`',
  '; touch PWNED',
  "' ; touch PWNED ; '",
  '" ; touch PWNED ; "',
  '\\"$(touch PWNED)\\"',
  '\ntouch PWNED',
  '$((1+1))',
  '*',
  'a b',
  '--rm -rf',
  '${IFS}',
  // and more
  "'",
  '"',
  '\\',
  'a\\',
  '\\\\',
  "it's",
  '$HOME',
  '${HOME}',
  '}',
  ')',
  '$(touch PWNED',
  '&& touch PWNED',
  '| touch PWNED',
  '> PWNED',
  'touch PWNED #',
  "$'\\x27' ; touch PWNED",
  '!',
  '~',
  '~root',
  'PATH=x',
  'a\tb',
  '  lead and trail  ',
  '\\`touch PWNED\\`',
  '\'"`$(touch PWNED)`"\'',
  'a\n\nb\n',
  'EOF',
  'x\nEOF\ntouch PWNED\nEOF',
  '-n',
  '%s%s%s',
  'plain',
  '/var/data/in/a.fq',
  'héllo wörld 你好',
  // bash evaluates text printed into $(( )) and expands a[...] in it again
  'a[$(touch PWNED)]',
  'x[`touch PWNED`]',
  '41',
];

/** Quoting contexts where the program must receive exactly the value as one argument. */
export const EXACT_CONTEXTS: { label: string; template: string; expected: (v: string) => string | undefined }[] = [
  { label: 'unquoted', template: "printf '<%s>\\n' {{ parameters.x }}", expected: (v) => `<${v}>\n` },
  { label: 'double quotes', template: 'printf \'<%s>\\n\' "{{ parameters.x }}"', expected: (v) => `<${v}>\n` },
  { label: 'single quotes', template: "printf '<%s>\\n' '{{ parameters.x }}'", expected: (v) => `<${v}>\n` },
  { label: 'text around it in double quotes', template: 'printf \'<%s>\\n\' "pre {{ parameters.x }} post"', expected: (v) => `<pre ${v} post>\n` },
  { label: 'text around it in single quotes', template: "printf '<%s>\\n' 'pre {{ parameters.x }} post'", expected: (v) => `<pre ${v} post>\n` },
  { label: 'concatenated (--out=)', template: "printf '<%s>\\n' --out={{ parameters.x }}", expected: (v) => `<--out=${v}>\n` },
  { label: 'concatenated both sides', template: "printf '<%s>\\n' a{{ parameters.x }}.bam", expected: (v) => `<a${v}.bam>\n` },
  { label: 'two values adjacent', template: "printf '<%s>\\n' {{ parameters.x }}{{ parameters.x }}", expected: (v) => `<${v}${v}>\n` },
  { label: 'filter upper', template: "printf '<%s>\\n' {{ parameters.x | upper }}", expected: (v) => `<${v.toUpperCase()}>\n` },
  { label: "~ '.bam'", template: "printf '<%s>\\n' {{ parameters.x ~ '.bam' }}", expected: (v) => `<${v}.bam>\n` },
  { label: "replace('a','b')", template: "printf '<%s>\\n' {{ parameters.x | replace('a', 'b') }}", expected: (v) => `<${v.replaceAll('a', 'b')}>\n` },
  { label: 'slice [1:]', template: "printf '<%s>\\n' {{ parameters.x[1:] }}", expected: (v) => `<${Array.from(v).slice(1).join('')}>\n` },
  { label: 'tojson', template: "printf '<%s>\\n' {{ parameters.x | tojson }}", expected: (v) => `<${JSON.stringify(v)}>\n` },
  {
    label: 'for loop over a split',
    template: "{% for p in parameters.x.split('/') %}printf '<%s>\\n' {{ p }}; {% endfor %}",
    expected: (v) =>
      v
        .split('/')
        .map((p) => `<${p}>\n`)
        .join(''),
  },
  { label: 'variable assignment', template: 'v={{ parameters.x }}; printf \'<%s>\\n\' "$v"', expected: (v) => `<${v}>\n` },
  {
    label: '$( ) inside double quotes',
    template: "printf '<%s>\\n' \"$(printf '%s' {{ parameters.x }})\"",
    expected: (v) => `<${v.replace(/\n+$/, '')}>\n`,
  },
  {
    label: '$( ) with double quotes inside double quotes',
    template: 'printf \'<%s>\\n\' "$(printf \'%s\' "{{ parameters.x }}")"',
    expected: (v) => `<${v.replace(/\n+$/, '')}>\n`,
  },
  { label: 'backticks', template: "v=`printf '%s' {{ parameters.x }}`; printf '<%s>\\n' \"$v\"", expected: (v) => `<${v.replace(/\n+$/, '')}>\n` },
  {
    label: 'backticks, double quotes inside',
    template: 'v=`printf \'%s\' "{{ parameters.x }}"`; printf \'<%s>\\n\' "$v"',
    expected: (v) => `<${v.replace(/\n+$/, '')}>\n`,
  },
  {
    label: 'backticks, single quotes inside',
    template: "v=`printf '%s' '{{ parameters.x }}'`; printf '<%s>\\n' \"$v\"",
    expected: (v) => `<${v.replace(/\n+$/, '')}>\n`,
  },
  { label: 'unquoted ${v:-...}', template: "unset v; printf '<%s>\\n' ${v:-{{ parameters.x }}}", expected: (v) => `<${v}>\n` },
  {
    label: "quoted here-document (<<'EOF')",
    template: "cat <<'EOF'\n{{ parameters.x }}\nEOF",
    expected: (v) => (/(^|\n)EOF(\n|$)/.test(v) ? undefined : `${v}\n`),
  },
  { label: 'here-document (<<EOF)', template: 'cat <<EOF\n{{ parameters.x }}\nEOF', expected: (v) => (/(^|\n)EOF(\n|$)/.test(v) ? undefined : `${v}\n`) },
  {
    label: 'here-document (<<-EOF) in $( )',
    template: 'printf \'<%s>\\n\' "$(cat <<-EOF\n\t{{ parameters.x }}\n\tEOF\n)"',
    expected: (v) => (/(^|\n)\t*EOF(\n|$)/.test(v) ? undefined : `<${v.replace(/\n+$/, '')}>\n`),
  },
  { label: 'shell comment', template: "printf '<%s>\\n' ok # {{ parameters.x }}", expected: (v) => (/\n/.test(v) ? undefined : '<ok>\n') },
  // A command substitution inside shell arithmetic is a command: the value is one argument there. Its output is read
  // as arithmetic, and bash expands a[$(...)] in it again: a value with $, `, [ or ] is refused there.
  {
    label: '$( ) inside $(( ))',
    template: "printf '<%s>\\n' $(( $(printf '%s' {{ parameters.x }} | wc -c) ))",
    expected: (v) => (/[$`[\]]/.test(v) ? undefined : `<${Buffer.byteLength(v)}>\n`),
  },
  {
    label: 'backticks inside $(( ))',
    template: "printf '<%s>\\n' $(( `printf '%s' {{ parameters.x }} | wc -c` + 0 ))",
    expected: (v) => (/[$`[\]]/.test(v) ? undefined : `<${Buffer.byteLength(v)}>\n`),
  },
  {
    label: '$( ) in double quotes inside $(( ))',
    template: "printf '<%s>\\n' $(( $(printf '%s' \"{{ parameters.x }}\" | wc -c) ))",
    expected: (v) => (/[$`[\]]/.test(v) ? undefined : `<${Buffer.byteLength(v)}>\n`),
  },
  // And the reverse: $(( )) inside $( ) is arithmetic, where only an integer is safe.
  {
    label: '$(( )) inside $( )',
    template: 'printf \'<%s>\\n\' "$(echo $(( {{ parameters.x }} + 1 )))"',
    expected: (v) => (/^[0-9]+$/.test(v) ? `<${Number(v) + 1}>\n` : undefined),
  },
];

/** Contexts where the output is split or reprocessed by the shell: only "nothing ran" is asserted. */
export const RUN_ONLY_CONTEXTS: string[] = [
  'echo $(echo {{ parameters.x }})',
  'echo `echo {{ parameters.x }}`',
  'echo $(echo \'{{ parameters.x }}\' "{{ parameters.x }}")',
  'for f in {{ parameters.x }}; do echo "$f"; done',
  'test -n {{ parameters.x }} && echo yes',
  'case {{ parameters.x }} in *) echo any;; esac',
  'x=1 {{ parameters.x }}',
  '{{ parameters.x }}',
];
