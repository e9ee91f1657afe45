import test from 'ava';
import { DepartedRoutes, type RouteAlias } from '../kernel/gateway/departed-routes.ts';

/** an alias as moleculer-web makes one, for a literal path and one method */
const alias = (method: string, fullPath: string, action: string): RouteAlias => ({
  fullPath,
  action,
  isMethod: (m: string) => m === method,
  match: (url: string) => {
    if (url.includes('%ZZ')) throw new URIError('URI malformed');
    return url === fullPath ? {} : false;
  },
});

test('only routes whose action no node serves are kept, and each is forgotten once its action is served again', (t) => {
  const served = new Set(['greeter.open']);
  const departed = new DepartedRoutes<RouteAlias>((action) => served.has(action));
  t.true(departed.empty);
  const where = alias('GET', '/api/v1/worker-echo/where', 'worker-echo.where');
  departed.remember([where, alias('GET', '/api/v1/greeter/open', 'greeter.open')]);
  t.false(departed.empty);
  t.is(departed.find('/api/v1/worker-echo/where', 'GET'), where);
  t.is(departed.find('/api/v1/worker-echo/where', 'POST'), undefined, 'another method is not that route');
  t.is(departed.find('/api/v1/greeter/open', 'GET'), undefined, 'a route still served is not departed');
  t.is(departed.find('/api/v1/worker-echo/%ZZ', 'GET'), undefined, 'a path the alias cannot decode is no match, not a throw');
  departed.remember([where]);
  t.is(departed.find('/api/v1/worker-echo/where', 'GET'), where, 'remembered once');
  served.add('worker-echo.where');
  t.is(departed.find('/api/v1/worker-echo/where', 'GET'), undefined);
  t.true(departed.empty);
});
