const status = document.getElementById('status');
async function refresh() {
  try {
    const res = await fetch('/health/ready');
    status.textContent = res.ok ? 'ready' : `starting (${(await res.json()).detail})`;
  } catch {
    status.textContent = 'API unreachable';
  }
}
refresh();
setInterval(refresh, 5000);
