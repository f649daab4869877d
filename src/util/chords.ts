// How a key chord such as `Control+Shift+a` splits into its keys. Shared by send_keys, which checks
// what the model wrote, and the drivers that press chords one key at a time.

/** Splits a chord on `+`; a `+` right after another separator is the plus key (`Control++`). */
export function chordParts(chord: string): string[] {
  const parts: string[] = [];
  let building = '';
  for (const character of chord) {
    if (character === '+' && building) {
      parts.push(building);
      building = '';
    } else {
      building += character;
    }
  }
  parts.push(building);
  return parts;
}
