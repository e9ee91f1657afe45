import test from 'ava';
import { DataTypes, Sequelize, type Model } from 'sequelize';
import { createTestDatabase, type TestDatabase } from './helpers/pg.ts';
import { defineTenantModel } from '../kernel/tenancy/tenant-model.ts';
import { tenantRepo } from '../kernel/tenancy/repo.ts';

let db: TestDatabase;
let sequelize: Sequelize;
let repo: ReturnType<typeof tenantRepo<Model>>;

test.before(async () => {
  db = await createTestDatabase('tenancy_repo');
  sequelize = new Sequelize(db.url, { logging: false });
  const Secret = defineTenantModel<Model>(sequelize, 'repo_secret', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
    name: { type: DataTypes.STRING, allowNull: false },
    sealed: { type: DataTypes.TEXT, allowNull: false },
  });
  await sequelize.sync();
  await Secret.bulkCreate([
    { entity_id: 'e-1', name: 'a', sealed: 'secret a' },
    { entity_id: 'e-1', name: 'b', sealed: 'secret b' },
    { entity_id: 'e-2', name: 'c', sealed: 'secret c' },
  ]);
  repo = tenantRepo(Secret, 'secret');
});
test.after.always(async () => {
  await sequelize?.close();
  await db?.drop();
});

test('pageRows gives one entity\'s rows with the total, and never reads an excluded column', async (t) => {
  const page = await repo.pageRows<Record<string, unknown>>('e-1', { order: [['name', 'ASC']], limit: 1, offset: 0, exclude: ['sealed'] });
  t.is(page.total, 2);
  t.deepEqual(page.items.map((r) => r.name), ['a']);
  t.false('sealed' in page.items[0], 'the excluded column is not selected');
  t.true('created_at' in page.items[0], 'every other column is');
  const all = await repo.pageRows<Record<string, unknown>>('e-1', { order: [['name', 'ASC']], limit: 10, offset: 0 });
  t.is(all.items[1].sealed, 'secret b');
  t.is((await repo.pageRows('e-2', { limit: 10, offset: 5 })).total, 1, 'an offset past the end still counts');
});
