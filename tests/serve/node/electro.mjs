// A single-table design in ElectroDB (over the AWS SDK for JavaScript v3)
// run against `ddb serve`: the client test of issue 15 item 4.
//
//   node electro.mjs ENDPOINT
//
// Two entities (store, employee) share one table and its GSI; the program
// creates the table with the plain SDK client, writes through ElectroDB
// (single puts, a batch put, a conditional create that must fail, a write
// transaction), reads back an entity, queries the store collection (both
// entities in one Query), pages through a partition two items at a time,
// and prints one deterministic line per step: the test compares stdout with
// electro.expected.  It may call only the npm packages installed by
// test_node.py (pinned there) and Node's standard library.
import { DynamoDBClient, CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Entity, Service } from 'electrodb';

const endpoint = process.argv[2];
if (!endpoint) {
  console.error('usage: node electro.mjs ENDPOINT');
  process.exit(2);
}
const table = 'electro';
const raw = new DynamoDBClient({
  endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  maxAttempts: 1,
});
const client = DynamoDBDocumentClient.from(raw);

const attrs = (names) => names.map((n) => ({ AttributeName: n, AttributeType: 'S' }));
await raw.send(new CreateTableCommand({
  TableName: table,
  BillingMode: 'PAY_PER_REQUEST',
  AttributeDefinitions: attrs(['pk', 'sk', 'gsi1pk', 'gsi1sk']),
  KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
  GlobalSecondaryIndexes: [{
    IndexName: 'gsi1',
    KeySchema: [{ AttributeName: 'gsi1pk', KeyType: 'HASH' }, { AttributeName: 'gsi1sk', KeyType: 'RANGE' }],
    Projection: { ProjectionType: 'ALL' },
  }],
}));
const desc = await raw.send(new DescribeTableCommand({ TableName: table }));
console.log(`table ${desc.Table.TableName} ${desc.Table.TableStatus} gsi=${desc.Table.GlobalSecondaryIndexes.map((g) => g.IndexName).join(',')}`);

const keys = {
  primary: { pk: { field: 'pk', composite: ['storeId'] }, sk: { field: 'sk', composite: [] } },
};
const Store = new Entity({
  model: { entity: 'store', version: '1', service: 'mall' },
  attributes: {
    storeId: { type: 'string', required: true },
    city: { type: 'string', required: true },
    rent: { type: 'number', required: true },
  },
  indexes: {
    store: { collection: 'storeStaff', ...keys.primary },
    byCity: {
      index: 'gsi1',
      pk: { field: 'gsi1pk', composite: ['city'] },
      sk: { field: 'gsi1sk', composite: ['storeId'] },
    },
  },
}, { table, client });
const Employee = new Entity({
  model: { entity: 'employee', version: '1', service: 'mall' },
  attributes: {
    storeId: { type: 'string', required: true },
    employeeId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    role: { type: ['clerk', 'manager'], required: true },
  },
  indexes: {
    staff: {
      collection: 'storeStaff',
      pk: { field: 'pk', composite: ['storeId'] },
      sk: { field: 'sk', composite: ['employeeId'] },
    },
  },
}, { table, client });
const mall = new Service({ store: Store, employee: Employee });

const sortBy = (key) => (a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0);
const show = (o) => JSON.stringify(Object.keys(o).sort().reduce((r, k) => ((r[k] = o[k]), r), {}));

// Entities: single puts and a batch put.
await Store.put({ storeId: 's1', city: 'Lyon', rent: 1200 }).go();
await Store.put({ storeId: 's2', city: 'Lyon', rent: 900 }).go();
await Store.put({ storeId: 's3', city: 'Nice', rent: 700 }).go();
const staff = [];
for (let i = 1; i <= 5; i++)
  staff.push({ storeId: 's1', employeeId: `e${i}`, name: `Name ${i}`, role: i === 1 ? 'manager' : 'clerk' });
const batch = await Employee.put(staff).go();
console.log(`batch put unprocessed=${batch.unprocessed.length}`);

// A conditional create of an existing item fails with DynamoDB's error.
try {
  await Store.create({ storeId: 's1', city: 'Paris', rent: 1 }).go();
  console.log('create s1 again: succeeded (wrong)');
} catch (e) {
  console.log(`create s1 again: ${e.cause?.name ?? e.name}`);
}

const got = await Store.get({ storeId: 's1' }).go();
console.log(`get store s1 ${show(got.data)}`);

// Updates: an increment, then a read of the new value.
await Store.update({ storeId: 's2' }).add({ rent: 50 }).go();
console.log(`rent s2 after add ${(await Store.get({ storeId: 's2' }).go()).data.rent}`);

// The GSI: stores by city.
const lyon = await Store.query.byCity({ city: 'Lyon' }).go();
console.log(`stores in Lyon ${lyon.data.map((s) => s.storeId).join(',')}`);

// The collection: the store and its staff in one Query.
const coll = await mall.collections.storeStaff({ storeId: 's1' }).go();
console.log(`collection storeStaff s1: store=${coll.data.store.map((s) => s.storeId).join(',')} ` +
  `employee=${coll.data.employee.sort(sortBy('employeeId')).map((e) => e.employeeId).join(',')}`);

// A write transaction: move e5 from s1 to s2 and raise s2's rent, all or nothing.
await mall.transaction.write(({ store, employee }) => [
  employee.delete({ storeId: 's1', employeeId: 'e5' }).commit(),
  employee.put({ storeId: 's2', employeeId: 'e5', name: 'Name 5', role: 'manager' }).commit(),
  store.patch({ storeId: 's2' }).add({ rent: 100 }).commit(),
]).go();
// A transaction whose condition fails changes nothing: ElectroDB answers
// canceled with each item's cancellation code (DynamoDB's
// CancellationReasons, in request order, "None" for the items that did not
// fail: API Reference, TransactWriteItems, TransactionCanceledException).
const failed = await mall.transaction.write(({ store, employee }) => [
  employee.put({ storeId: 's3', employeeId: 'e9', name: 'Name 9', role: 'clerk' }).commit(),
  store.create({ storeId: 's2', city: 'Nice', rent: 1 }).commit(),
]).go();
console.log(`conflicting transaction: canceled=${failed.canceled} reasons=${failed.data.map((d) => d.code ?? d.rejected).join(',')}`);
const s2 = await mall.collections.storeStaff({ storeId: 's2' }).go();
const s3 = await mall.collections.storeStaff({ storeId: 's3' }).go();
console.log(`after transactions: s2 rent=${s2.data.store[0].rent} staff=${s2.data.employee.map((e) => e.employeeId).join(',')} ` +
  `s3 staff=${s3.data.employee.length}`);

// Pagination: ElectroDB's cursor, two items a page.  DynamoDB returns
// LastEvaluatedKey whenever a page stops at Limit, even when nothing follows,
// so s1's four employees take three pages, the last one empty (DynamoDB
// Developer Guide, "Paginating table query results").
let cursor = null;
let page = 0;
const seen = [];
do {
  const r = await Employee.query.staff({ storeId: 's1' }).go({ limit: 2, cursor });
  page++;
  seen.push(`[${r.data.map((e) => e.employeeId).join(',')}]`);
  cursor = r.cursor;
} while (cursor && page < 10);
console.log(`staff of s1 by pages of 2: ${seen.join(' ')}`);

// The same through the document client: Limit and LastEvaluatedKey.
let lek;
const pages = [];
do {
  const r = await client.send(new QueryCommand({
    TableName: table,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': '$mall#storeid_s1' },
    Limit: 2,
    ExclusiveStartKey: lek,
  }));
  pages.push(`${r.Count}${r.LastEvaluatedKey ? '+' : ''}`);
  lek = r.LastEvaluatedKey;
} while (lek && pages.length < 10);
console.log(`document client pages (count, + = more): ${pages.join(' ')}`);
raw.destroy();
