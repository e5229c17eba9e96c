// Expected ydke:// URLs of tests/data/ydk/*.ydk, computed with the npm package ygopro-deck-encode.
const fs = require('fs');
const path = require('path');
const YGOProDeck = require('ygopro-deck-encode').default || require('ygopro-deck-encode');
const dir = process.argv[2];
// Extra-deck monsters written under #main in the eldlich file: ygopro's LoadDeck moves them to
// the extra deck (in file order, ahead of the #extra section); the npm encoder knows no types.
const EXTRA_UNDER_MAIN = [80532587, 11765832, 73964868];
const out = {};
for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.ydk')).sort()) {
  const text = fs.readFileSync(path.join(dir, f), 'utf8');
  const deck = YGOProDeck.fromYdkString(text);
  const entry = { ydke: deck.toYdkeURL() };
  if (deck.main.some((id) => EXTRA_UNDER_MAIN.includes(id))) {
    const routed = new YGOProDeck();
    routed.main = deck.main.filter((id) => !EXTRA_UNDER_MAIN.includes(id));
    routed.extra = [...deck.main.filter((id) => EXTRA_UNDER_MAIN.includes(id)), ...deck.extra];
    routed.side = deck.side;
    entry.ydke_routed_by_type = routed.toYdkeURL();
  }
  out[f] = entry;
}
console.log(JSON.stringify(out, null, 1));
