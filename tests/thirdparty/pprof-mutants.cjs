// The profiles pprof-invariants.cjs is tried on: one that keeps every rule
// of profile.proto it checks (base.pb, with its folded file and the nm
// listing of the image it claims, image.syms), and for each rule a copy
// that breaks it (RULE.pb, beside the same folded file).
//
// node pprof-mutants.cjs DIR  (prints the rules, one a line, in order)
'use strict'
const fs = require('fs')
const path = require('path')
const { Profile, StringTable, emptyTableToken } = require('pprof-format')

const dir = process.argv[2]
const P = 1000

// A kernel image at [0x1000, 0x2000): f_leaf, then f_outer, into which
// f_inner is inlined. Two stacks: f_outer > f_inner > f_leaf (1 sample),
// f_outer > f_inner (2 samples, one sample of 2 periods).
function base() {
	const strings = ['', 'samples', 'count', 'cpu', 'nanoseconds', 'f_leaf', 'f_inner', 'f_outer',
		'/img.elf', 'b1d', 'vcpu', 'state', 'busy', 'src.c']
	const s = (x) => strings.indexOf(x)
	const st = new StringTable(emptyTableToken)
	for (const x of strings) st.dedup(x)
	return new Profile({
		sampleType: [{ type: s('samples'), unit: s('count') }, { type: s('cpu'), unit: s('nanoseconds') }],
		periodType: { type: s('cpu'), unit: s('nanoseconds') },
		period: P,
		defaultSampleType: s('samples'),
		mapping: [{ id: 1, memoryStart: 0x1000, memoryLimit: 0x2000, fileOffset: 0x1000, filename: s('/img.elf'),
			buildId: s('b1d'), hasFunctions: true, hasLineNumbers: true, hasInlineFrames: true }],
		function: [
			{ id: 1, name: s('f_leaf'), systemName: s('f_leaf'), filename: s('src.c'), startLine: 10 },
			{ id: 2, name: s('f_inner'), systemName: s('f_inner'), filename: s('src.c'), startLine: 20 },
			{ id: 3, name: s('f_outer'), systemName: s('f_outer'), filename: s('src.c'), startLine: 30 },
		],
		location: [
			{ id: 1, mappingId: 1, address: 0x1100, line: [{ functionId: 1, line: 11 }] },
			{ id: 2, mappingId: 1, address: 0x1200, line: [{ functionId: 2, line: 21 }, { functionId: 3, line: 31 }] },
		],
		sample: [
			{ locationId: [1, 2], value: [1, P], label: [{ key: s('vcpu'), num: 0 }, { key: s('state'), str: s('busy') }] },
			{ locationId: [2], value: [1, P], label: [{ key: s('vcpu'), num: 1 }, { key: s('state'), str: s('busy') }] },
			{ locationId: [2], value: [1, P + 1], label: [{ key: s('vcpu'), num: 0 }, { key: s('state'), str: s('busy') }] },
		],
		stringTable: st,
	})
}
const folded = 'f_outer;f_inner (inlined);f_leaf 1\nf_outer;f_inner (inlined) 2\n'

// Each rule of pprof-invariants.cjs, in its order, and how to break it.
const rules = [
	['decode', null],
	['strings', (p) => { p.function[0].name = 99 }],
	['ids', (p) => { p.function.push({ id: 3, name: p.function[0].name }) }],
	['locrefs', (p) => { p.sample[1].locationId = [7] }],
	['maprefs', (p) => { p.location[0].mappingId = 5 }],
	['funrefs', (p) => { p.location[1].line[0].functionId = 9 }],
	['bounds', (p) => { p.location[0].address = 0x2000 }],
	['order', (p) => { p.location[1].line.reverse() }],
	['stacks', (p) => { p.sample[1].locationId = [1, 2] }],
	['values', (p) => { p.sample[2].value = [1] }],
	['labels', (p) => { p.sample[0].label[1].numUnit = p.sample[0].label[1].key }],
	['labeltypes', (p) => {
		const st = new StringTable(emptyTableToken)
		for (const x of p.stringTable.strings.concat(['0', '1'])) st.dedup(x)
		p.stringTable = st
		for (const s of p.sample) {
			s.label[0].str = st.strings.indexOf(String(s.label[0].num))
			s.label[0].num = 0
		}
	}],
	['period', (p) => { p.sample[2].value[1] = 3 * P }],
	['dups', (p) => {
		p.location.push({ id: 3, mappingId: 1, address: 0x1100, line: [{ functionId: 1, line: 11 }] })
		p.sample[0].locationId = [3, 2]
	}],
]

fs.mkdirSync(dir, { recursive: true })
const write = (name, p) => {
	fs.writeFileSync(path.join(dir, name + '.pb'), Buffer.isBuffer(p) ? p : new Profile(p).encode())
	fs.writeFileSync(path.join(dir, name + '.folded'), folded)
}
write('base', base())
fs.writeFileSync(path.join(dir, 'image.syms'),
	'0000000000001080 0000000000000100 T f_leaf\n0000000000001180 0000000000000100 T f_outer\n')
for (const [rule, breakIt] of rules) {
	if (breakIt === null) {
		// A length-delimited field longer than the file.
		write(rule, Buffer.from([0x0a, 0x7f, 0x08, 0x01]))
	} else {
		const p = base()
		breakIt(p)
		write(rule, p)
	}
	console.log(rule)
}
