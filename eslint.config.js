// ESLint for src, test, scripts, bench and examples: typescript-eslint's strict type-checked rules, which read
// the types through tsconfig.json (projectService). Formatting is Prettier's job (`npm run format`), not ESLint's.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Generated or not ours: build output, coverage, the bundled page runtime, the generated API docs.
  { ignores: ['dist/', 'coverage/', 'temp/', '.tmp/', 'docs/', 'src/dom/page/generated/', 'src/ui/page/generated/'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The loop's reliability rests on these three; they are in the preset, listed to say they must stay on.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // tsc already reports undefined names (checkJs covers the .mjs scripts); this rule only knows globals lists.
      'no-undef': 'off',
      'no-eval': 'error',
      // An `async` function without `await` is how this code turns a synchronous throw into a rejection and
      // implements async interfaces (drivers, models, handlers); the floating-promise rules catch the real hazards.
      '@typescript-eslint/require-await': 'off',
      // Numbers and booleans read fine in messages; objects, nullish values and `any` still need a conversion.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `return send(...)` and `return await route.fallback()` end a function that returns nothing in one line;
      // this rule's fix spreads each over a block. A void value used as a value is rare enough without it.
      '@typescript-eslint/no-confusing-void-expression': 'off',
      // The options of a public function are checked at run time for JavaScript callers, and the page code
      // distrusts the DOM's types (a hostile page can replace anything): such checks look unnecessary to the types.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Errors are recognised with `isInstance()`, which works across duplicated installs where `instanceof` does not,
      // and then read through a cast: this rule wants the `instanceof` that the error design avoids.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      // Passing on a rejection reason we were given (an aborted signal's, a caught one) is not inventing a non-Error;
      // only-throw-error allows rethrowing such values by default, and this matches it.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // Attribute and header records are plain objects keyed by name, and deleting a key is what is meant.
      '@typescript-eslint/no-dynamic-delete': 'off',
      // A leading underscore marks a parameter kept for its position (an overridable hook, a callback's signature).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // A timer or server declared before the callbacks that clear or use it, and set after them.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // The page runtime captures native methods before a page can replace them and calls them with `.call`.
    files: ['src/dom/page/**'],
    rules: { '@typescript-eslint/unbound-method': 'off' },
  },
  {
    // The wire readers of the model conformance kit walk `RecordedRequest.body`, typed `any` on purpose (see
    // model-conformance-server.ts), and check each value they take from it.
    files: ['src/testing/model-conformance-{openai,anthropic,gemini}.ts'],
    rules: { '@typescript-eslint/no-unsafe-member-access': 'off', '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
  {
    // The scripts read JSON files (package.json, the lockfile, vitest's report) and use what they find.
    files: ['scripts/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    // Type tests spell out the defaults they pin (`Executor<unknown>`) and read methods' types without calling them.
    files: ['test/types/**'],
    rules: { '@typescript-eslint/no-unnecessary-type-arguments': 'off', '@typescript-eslint/unbound-method': 'off' },
  },
  {
    // Tests index into results they have just checked, and read parsed JSON request bodies that `expect` checks.
    files: ['**/*.test.ts', 'test/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
);
