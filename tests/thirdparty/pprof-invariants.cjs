// The invariants of profile.proto (google/pprof's proto/profile.proto) checked
// on the raw messages as the npm pprof-format decoder (Datadog's) reads
// them: what a reader may rely on and Go's profile.Parse half repairs.
//
// node pprof-invariants.cjs [--image SYMS BUILD-ID] [--from N] FILE...
//
// Prints one TAP result per invariant (numbered from N + 1), over all the
// files, and for each file that breaks it a diagnostic line with the count
// and the first instances. --image: SYMS is `nm -S --defined-only` of the
// image with that build-id; in a location of its mapping with inlined
// frames, the last line must name the function that holds the address (for
// a caller, the address before it), the others not. A FILE.folded beside
// FILE.pb.gz (the same run's folded output) must hold the stacks the
// samples give, inlined frames and all; without either, those rules skip.
'use strict'
const fs = require('fs')
const zlib = require('zlib')
const path = require('path')
const { Profile } = require('pprof-format')

let from = 0
let image = null
const files = []
const argv = process.argv.slice(2)
for (let i = 0; i < argv.length; i++) {
	if (argv[i] === '--from') from = Number(argv[++i])
	else if (argv[i] === '--image') image = { syms: argv[++i], buildId: argv[++i] }
	else files.push(argv[i])
}

const big = (v) => BigInt(v || 0)
const num = (v) => Number(v || 0)
const hex = (v) => '0x' + big(v).toString(16)

// The image's functions, sorted by address: [start, end, name]; one
// without a size ends where the next begins.
let imageSyms = []
if (image) {
	const all = []
	for (const l of fs.readFileSync(image.syms, 'utf8').split('\n')) {
		const f = l.trim().split(/\s+/)
		if (f.length === 4 && /^[tTwW]$/.test(f[2])) all.push([BigInt('0x' + f[0]), BigInt('0x' + f[1]), f[3]])
		else if (f.length === 3 && /^[tTwW]$/.test(f[1])) all.push([BigInt('0x' + f[0]), null, f[2]])
	}
	all.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
	for (let i = 0; i < all.length; i++) {
		const [start, size, name] = all[i]
		let end = size === null ? null : start + size
		if (end === null) for (let j = i + 1; j < all.length && end === null; j++) if (all[j][0] > start) end = all[j][0]
		if (end !== null && end > start) imageSyms.push([start, end, name])
	}
}
function symbolAt(addr) {
	const names = []
	for (const [s, e, n] of imageSyms) if (addr >= s && addr < e) names.push(n)
	return names
}

// Each invariant: its TAP description and, per file, what broke it.
const checks = [
	['decode', 'pprof-format decodes each profile, with samples'],
	['strings', 'string_table[0] is "" and every string index is in the table'],
	['ids', 'Mapping, Location and Function ids are unique and nonzero'],
	['locrefs', "every sample's location_id names a Location"],
	['maprefs', "every Location's mapping_id names a Mapping"],
	['funrefs', "every Line's function_id names a Function"],
	['bounds', "every Location's address is inside its Mapping's [memory_start, memory_limit)"],
	['order', "Lines innermost first: the last names the function that holds the address"],
	['stacks', 'the samples give the same run\'s folded stacks, inlined frames and weights'],
	['values', "every sample has one value per sample_type"],
	['labels', 'labels have a key; num_unit only on numeric labels (no str)'],
	['labeltypes', 'a label whose values are all integers is numeric (too): tools filter it by number'],
	['period', "period_type is one of the sample types, period > 0, a sample's value its count times it"],
	['dups', 'no duplicate Locations (same mapping, address and lines)'],
]
const broken = {}
for (const [k] of checks) broken[k] = []
const ran = {}
const notes = { period: [] }
function fail(key, file, count, what) {
	broken[key].push(`${path.basename(file)}: ${count} ${what}`)
}

for (const file of files) {
	let p
	try {
		let buf = fs.readFileSync(file)
		if (buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf)
		p = Profile.decode(buf)
	} catch (e) {
		fail('decode', file, 1, `error: ${e.message}`)
		continue
	}
	if (p.sample.length === 0) fail('decode', file, 'no', 'samples')
	const st = p.stringTable ? p.stringTable.strings : []
	const str = (i) => (num(i) < st.length ? st[num(i)] : `<string ${i}?>`)

	// Strings.
	const badStr = []
	if (st.length === 0 || st[0] !== '') badStr.push(`string_table[0] is ${JSON.stringify(st[0])}`)
	const sidx = (what, i) => {
		if (num(i) < 0 || num(i) >= st.length) badStr.push(`${what} = ${i} (table of ${st.length})`)
	}
	p.sampleType.forEach((t, i) => { sidx(`sample_type[${i}].type`, t.type); sidx(`sample_type[${i}].unit`, t.unit) })
	if (p.periodType) { sidx('period_type.type', p.periodType.type); sidx('period_type.unit', p.periodType.unit) }
	p.sample.forEach((s, i) => s.label.forEach((l, j) => {
		sidx(`sample[${i}].label[${j}].key`, l.key); sidx(`sample[${i}].label[${j}].str`, l.str)
		sidx(`sample[${i}].label[${j}].num_unit`, l.numUnit)
	}))
	p.mapping.forEach((m) => { sidx(`mapping ${m.id} filename`, m.filename); sidx(`mapping ${m.id} build_id`, m.buildId) })
	p.function.forEach((f) => {
		sidx(`function ${f.id} name`, f.name); sidx(`function ${f.id} system_name`, f.systemName)
		sidx(`function ${f.id} filename`, f.filename)
	})
	p.comment.forEach((c, i) => sidx(`comment[${i}]`, c))
	sidx('drop_frames', p.dropFrames); sidx('keep_frames', p.keepFrames)
	sidx('default_sample_type', p.defaultSampleType); sidx('doc_url', p.docUrl)
	if (num(p.defaultSampleType) && !p.sampleType.some((t) => num(t.type) === num(p.defaultSampleType)))
		badStr.push(`default_sample_type "${str(p.defaultSampleType)}" is no sample type`)
	if (badStr.length) fail('strings', file, badStr.length, 'bad: ' + badStr.slice(0, 3).join('; '))

	// Ids.
	const byId = (kind, list) => {
		const m = new Map()
		const bad = []
		for (const x of list) {
			const id = num(x.id)
			if (id === 0) bad.push(`${kind} with id 0`)
			else if (m.has(id)) bad.push(`${kind} id ${id} twice`)
			else m.set(id, x)
		}
		return [m, bad]
	}
	const [maps, badM] = byId('Mapping', p.mapping)
	const [locs, badL] = byId('Location', p.location)
	const [funs, badF] = byId('Function', p.function)
	const badIds = badM.concat(badL, badF)
	if (badIds.length) fail('ids', file, badIds.length, 'bad: ' + badIds.slice(0, 3).join('; '))

	// References.
	const badLoc = []
	p.sample.forEach((s, i) => s.locationId.forEach((id) => {
		if (!locs.has(num(id))) badLoc.push(`sample ${i} names location ${id}`)
	}))
	if (badLoc.length) fail('locrefs', file, badLoc.length, 'dangling: ' + badLoc.slice(0, 3).join('; '))
	const badMap = []
	const badFun = []
	const badBounds = []
	for (const l of p.location) {
		const m = maps.get(num(l.mappingId))
		if (num(l.mappingId) && !m) badMap.push(`location ${l.id} names mapping ${l.mappingId}`)
		for (const ln of l.line)
			if (!funs.has(num(ln.functionId))) badFun.push(`location ${l.id} names function ${ln.functionId}`)
		// Address 0 is none: then naming a Mapping says nothing true.
		if (m && (big(l.address) < big(m.memoryStart) || big(l.address) >= big(m.memoryLimit)))
			badBounds.push(`location ${l.id} at ${hex(l.address)} outside mapping ${m.id} [${hex(m.memoryStart)}, ${hex(m.memoryLimit)})`)
	}
	for (const m of p.mapping)
		if (big(m.memoryLimit) < big(m.memoryStart))
			badBounds.push(`mapping ${m.id} [${hex(m.memoryStart)}, ${hex(m.memoryLimit)}) ends before it starts`)
	if (badMap.length) fail('maprefs', file, badMap.length, 'dangling: ' + badMap.slice(0, 3).join('; '))
	if (badFun.length) fail('funrefs', file, badFun.length, 'dangling: ' + badFun.slice(0, 3).join('; '))
	if (badBounds.length) fail('bounds', file, badBounds.length, 'out: ' + badBounds.slice(0, 3).join('; '))

	const fname = (id) => { const f = funs.get(num(id)); return f ? str(f.name) : `<function ${id}?>` }
	const lineText = (l) => l.line.map((ln) => `${fname(ln.functionId)}:${ln.line}`).join(' < ')

	// Line order against the image's symbols (its mapping only): in a
	// location with inlined frames, the last line names the function that
	// holds the address (a caller's: the address or the one before it),
	// the others not.
	if (image) {
		ran.order = (ran.order || 0)
		const badOrder = []
		for (const l of p.location) {
			const m = maps.get(num(l.mappingId))
			if (!m || str(m.buildId) !== image.buildId || big(l.address) === 0n || l.line.length < 2) continue
			ran.order++
			const names = l.line.map((ln) => fname(ln.functionId))
			const held = new Set(symbolAt(big(l.address)).concat(symbolAt(big(l.address) - 1n)))
			if (!held.has(names[names.length - 1]) || names.slice(0, -1).some((x) => held.has(x)))
				badOrder.push(`location ${l.id} at ${hex(l.address)} (${lineText(l)}): the image has ${held.size ? [...held].join('/') : 'no function'} there`)
		}
		if (badOrder.length) fail('order', file, badOrder.length, 'inlined locations not innermost first: ' + badOrder.slice(0, 3).join('; '))
	}

	// The same run's folded file.
	const folded = file.replace(/\.pb(\.gz)?$/, '.folded')
	const countType = p.sampleType.findIndex((t) => str(t.unit) === 'count')
	if (folded !== file && fs.existsSync(folded) && countType >= 0) {
		ran.stacks = true
		const want = new Map()
		for (const line of fs.readFileSync(folded, 'utf8').split('\n')) {
			const m = /^(.*) (\d+)$/.exec(line)
			if (m) want.set(m[1], (want.get(m[1]) || 0) + Number(m[2]))
		}
		const got = new Map()
		for (const s of p.sample) {
			const frames = []
			for (const id of s.locationId) {
				const l = locs.get(num(id))
				if (!l) continue
				l.line.forEach((ln, i) =>
					frames.push(fname(ln.functionId) + (i < l.line.length - 1 ? ' (inlined)' : '')))
			}
			// The folded writer roots blocked and woken stacks under
			// [idle] and [waiting], the pprof labels them (state).
			const state = s.label.map((lb) => str(lb.key) === 'state' ? str(lb.str) : '').find((v) => v)
			if (state === 'idle' || state === 'waiting') frames.push(`[${state}]`)
			const k = frames.reverse().join(';')
			got.set(k, (got.get(k) || 0) + num(s.value[countType]))
		}
		const diff = []
		for (const [k, v] of want) if (got.get(k) !== v) diff.push(`${k}: folded ${v}, pprof ${got.get(k) || 0}`)
		for (const [k, v] of got) if (!want.has(k)) diff.push(`${k}: folded 0, pprof ${v}`)
		if (diff.length) fail('stacks', file, diff.length, `stacks differ from ${path.basename(folded)}: ` + diff.slice(0, 2).join('; '))
	}

	// Values.
	const badVal = []
	if (p.sampleType.length === 0 && p.sample.length) badVal.push('no sample_type')
	p.sample.forEach((s, i) => {
		if (s.value.length !== p.sampleType.length) badVal.push(`sample ${i} has ${s.value.length} values for ${p.sampleType.length} types`)
	})
	if (badVal.length) fail('values', file, badVal.length, 'bad: ' + badVal.slice(0, 3).join('; '))

	// Labels.
	const badLab = new Map()
	p.sample.forEach((s) => s.label.forEach((l) => {
		let why = null
		if (num(l.key) === 0) why = 'label without a key'
		else if (num(l.str) !== 0 && num(l.numUnit) !== 0) why = `"${str(l.key)}" is a string label ("${str(l.str)}") with num_unit "${str(l.numUnit)}"`
		else if (num(l.str) !== 0 && num(l.num) !== 0) why = `"${str(l.key)}" has both str and num`
		if (why) badLab.set(why, (badLab.get(why) || 0) + 1)
	}))
	if (badLab.size) {
		let n = 0
		for (const v of badLab.values()) n += v
		fail('labels', file, n, 'labels: ' + [...badLab].slice(0, 3).map(([w, c]) => `${w} (${c}x)`).join('; '))
	}

	// Label types: go tool pprof -tagfocus=vcpu=0 reads "0" as a range of
	// numbers and matches no string label.
	const strVals = new Map()
	const numKeys = new Set()
	p.sample.forEach((s) => s.label.forEach((l) => {
		if (num(l.str) !== 0) {
			const k = str(l.key)
			if (!strVals.has(k)) strVals.set(k, new Map())
			const v = strVals.get(k)
			v.set(str(l.str), (v.get(str(l.str)) || 0) + 1)
		} else numKeys.add(str(l.key))
	}))
	const badTypes = []
	for (const [k, vals] of strVals) {
		if (numKeys.has(k) || ![...vals.keys()].every((v) => /^-?[0-9]+$/.test(v))) continue
		let c = 0
		for (const x of vals.values()) c += x
		badTypes.push(`"${k}" is a string label holding integers (${[...vals.keys()].slice(0, 4).join(', ')}) on ${c} samples, never a number`)
	}
	if (badTypes.length) fail('labeltypes', file, badTypes.length, 'keys: ' + badTypes.join('; '))

	// Period.
	const badPer = []
	const pt = p.periodType
	if (num(p.period) < 0) badPer.push(`period ${p.period} < 0`)
	if (num(p.period) !== 0 && (!pt || !num(pt.type) || !num(pt.unit))) badPer.push(`period ${p.period} without a period_type`)
	if (pt && (num(pt.type) || num(pt.unit))) {
		if (num(p.period) <= 0) badPer.push(`period_type ${str(pt.type)}/${str(pt.unit)} with period ${p.period}`)
		const col = p.sampleType.findIndex((t) => str(t.type) === str(pt.type) && str(t.unit) === str(pt.unit))
		if (col < 0) badPer.push(`period_type ${str(pt.type)}/${str(pt.unit)} is none of the sample types`)
		else if (num(p.period) > 0 && countType >= 0 && col !== countType) {
			// A sample of N periods holds N times the period, give or
			// take the rounding of a period that is no whole number of
			// its unit (1e9 / 149 Hz ns): within one unit a period.
			const per = big(p.period)
			let rounded = 0
			const mis = []
			for (const s of p.sample) {
				const c = big(s.value[countType])
				const d = big(s.value[col]) - c * per
				if (d > c || -d > c) mis.push(`count ${c}, ${str(pt.type)} ${s.value[col]}, want ${c * per}`)
				else if (d !== 0n) rounded++
			}
			if (mis.length) badPer.push(`${mis.length} samples' ${str(pt.type)} is not their count times the period ${p.period} (first: ${mis[0]})`)
			if (rounded) notes.period.push(`${path.basename(file)}: ${rounded} samples' ${str(pt.type)} is their count times the period give or take its rounding`)
		}
	}
	if (badPer.length) fail('period', file, badPer.length, 'bad: ' + badPer.slice(0, 3).join('; '))

	// Duplicate Locations.
	const seen = new Map()
	const dups = []
	for (const l of p.location) {
		const k = `${num(l.mappingId)} ${big(l.address)} ${l.isFolded} ` +
			l.line.map((ln) => `${num(ln.functionId)}:${num(ln.line)}:${num(ln.column)}`).join(',')
		if (seen.has(k)) dups.push(`location ${l.id} = location ${seen.get(k)} (mapping ${l.mappingId}, ${hex(l.address)}, ${lineText(l)})`)
		else seen.set(k, num(l.id))
	}
	if (dups.length) fail('dups', file, dups.length, 'duplicates: ' + dups.slice(0, 3).join('; '))
}

let n = from
const names = files.map((f) => path.basename(f)).join(' ')
for (const [key, desc] of checks) {
	n++
	if ((key === 'order' || key === 'stacks') && !ran[key]) {
		console.log(`ok ${n} - ${desc} # SKIP ${key === 'order' ? 'no location with inlined frames in the image given' : 'no folded file beside any profile'}`)
	} else if (key === 'order' && broken[key].length === 0) {
		console.log(`ok ${n} - ${desc}: ${ran.order} locations with inlined frames, in ${files.length} profiles`)
	} else if (broken[key].length === 0) {
		console.log(`ok ${n} - ${desc}: ${files.length} profiles`)
	} else {
		console.log(`not ok ${n} - ${desc}: broken in ${broken[key].length} of ${files.length} profiles`)
		for (const b of broken[key]) console.log(`# ${b}`)
	}
	for (const x of notes[key] || []) console.log(`# note: ${x}`)
}
console.log(`# profiles: ${names}`)
