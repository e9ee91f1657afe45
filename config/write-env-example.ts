import { readFileSync, writeFileSync } from 'node:fs';
import { renderEnvExample, withConfigTable } from './env-example.ts';

const example = new URL('../.env.example', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
writeFileSync(example, renderEnvExample());
writeFileSync(readme, withConfigTable(readFileSync(readme, 'utf8')));
console.log('wrote .env.example and the README configuration table');
