import { writeFileSync } from 'node:fs';
import { renderEnvExample } from './env-example.ts';

writeFileSync(new URL('../.env.example', import.meta.url), renderEnvExample());
console.log('wrote .env.example');
