import { authService, entitiesService, usersService } from './services.ts';

/** The identity package: see README.md beside this file. */
export default [authService, usersService, entitiesService];
