// The linter for our own JavaScript: the probe's modules (probe/*.js), which are ES modules
// joined into one script that runs in each page's isolated world (lm_eval_a11y/probe_bundle.py),
// and this file. eslint's recommended rules, with the globals each one really has.
import js from '@eslint/js';
import globals from 'globals';

export default [
  js.configs.recommended,
  {
    files: ['probe/**/*.js'],
    languageOptions: {
      ecmaVersion: 'latest',
      sourceType: 'module',
      globals: {
        // The page's window, in a world of our own: no Node, no page globals.
        ...globals.browser,
        // axe-core, evaluated into the same world just before the probe.
        axe: 'readonly',
      },
    },
  },
  {
    files: ['eslint.config.js'],
    languageOptions: { sourceType: 'module', globals: globals.node },
  },
];
