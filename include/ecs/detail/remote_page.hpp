/**
 * @file ecs/detail/remote_page.hpp
 * @brief The remote inspector's explorer page (`GET /`): one self-contained HTML document, its
 *        style and script inline, no external script, font or CDN.
 *
 * The page talks only to the /api routes of the server that served it: the world summary, an
 * entity list with search and component filters and a tree by Parent / exclusive relationships,
 * the selected entity's components (editable when the server allows writes), the archetypes as a
 * bar chart of memory, a query console, the systems with a timing chart and a live view fed by
 * /api/watch. A `?token=` in the page's address is passed on to every request. Element ids are
 * stable: the browser test reads the page through them.
 */
#pragma once

namespace ecs {
namespace detail {

/// The explorer page (static storage).
inline const char* remote_page() noexcept {
    return R"ECSPAGE(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ecs inspector</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:13px/1.4 system-ui,sans-serif;margin:0;background:#16181d;color:#d8dde6}
header{padding:8px 12px;background:#20242c;display:flex;gap:18px;align-items:center;flex-wrap:wrap}
header h1{font-size:15px;margin:0}
.stat b{color:#8fc1ff}
main{display:grid;grid-template-columns:300px 1fr 1fr;gap:10px;padding:10px}
section{background:#1d2027;border:1px solid #2c313b;border-radius:6px;padding:8px;min-width:0}
h2{font-size:13px;margin:0 0 6px;color:#aab4c3;text-transform:uppercase;letter-spacing:.05em}
input,select,button{background:#272c35;color:#d8dde6;border:1px solid #3a414d;border-radius:4px;padding:3px 6px;font:inherit}
button{cursor:pointer} button:hover{background:#323946}
ul{list-style:none;margin:0;padding:0} #entity-list{max-height:60vh;overflow:auto}
#entity-list li{padding:2px 4px;cursor:pointer;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
#entity-list li.sel{background:#2f4a6d} #entity-list li:hover{background:#2a2f39}
.dim{color:#7d8694} .err{color:#ff8a80} .comp{border-top:1px solid #2c313b;padding:4px 0}
.comp h3{font-size:13px;margin:2px 0;display:flex;justify-content:space-between}
.field{display:flex;gap:6px;align-items:center;margin:1px 0 1px 8px} .field label{min-width:90px;color:#aab4c3}
.bar{height:14px;background:#4b7bd1;border-radius:2px;margin:1px 0} .barrow{margin:3px 0}
.barrow .lbl{font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
table{border-collapse:collapse;width:100%;font-size:12px} td,th{border-bottom:1px solid #2c313b;padding:2px 4px;text-align:left;vertical-align:top}
pre{margin:0;white-space:pre-wrap;word-break:break-all}
</style></head><body>
<header><h1>ecs inspector</h1>
<span class="stat">entities <b id="stat-entities" data-key="entities">-</b></span>
<span class="stat">archetypes <b id="stat-archetypes" data-key="archetypes">-</b></span>
<span class="stat">components <b id="stat-components" data-key="components">-</b></span>
<span class="stat">tracked <b id="stat-tracked" data-key="tracked">-</b></span>
<span class="stat">memory <b id="stat-memory" data-key="memory_bytes">-</b></span>
<span class="stat">frame <b id="stat-frame" data-key="frame">-</b></span>
<span id="status" class="dim"></span></header>
<main>
<section id="entities-panel"><h2>Entities <span id="entity-total" class="dim"></span></h2>
<div style="display:flex;gap:4px;flex-wrap:wrap;margin-bottom:4px">
<input id="search" placeholder="name prefix" size="12">
<input id="filter-with" placeholder="with A,B" size="10">
<input id="filter-without" placeholder="without C" size="10">
<label class="dim"><input type="checkbox" id="tree-toggle"> tree</label>
<button id="create-entity" class="write">+ entity</button></div>
<ul id="entity-list"></ul></section>
<section id="entity-panel"><h2>Entity <span id="entity-title" class="dim">(none selected)</span></h2>
<div id="entity-actions" style="display:none;gap:4px;margin-bottom:4px;flex-wrap:wrap">
<label class="dim"><input type="checkbox" id="entity-enabled"> enabled</label>
<select id="add-component"></select><button id="add-component-btn" class="write">add</button>
<button id="destroy-entity" class="write">destroy</button></div>
<div id="entity-detail"></div><div id="entity-error" class="err"></div></section>
<section id="side-panel"><h2>Archetypes</h2><div id="archetype-chart"></div>
<h2 style="margin-top:10px">Components</h2><table id="component-table"><thead><tr><th>name</th><th>storage</th><th>count</th><th>size</th></tr></thead><tbody></tbody></table></section>
<section id="query-panel" style="grid-column:1 / span 2"><h2>Query</h2>
<div style="display:flex;gap:4px"><input id="query-input" style="flex:1" placeholder="Position, Velocity"><button id="query-run">run</button><button id="watch-run">watch</button></div>
<div id="query-error" class="err"></div><div class="dim">total <span id="query-total">-</span></div>
<table id="query-rows"><tbody></tbody></table>
<h2 style="margin-top:10px">Live <span id="live-status" class="dim">(not watching)</span></h2>
<div class="dim">events <span id="live-events">0</span></div><table id="live-rows"><tbody></tbody></table></section>
<section id="systems-panel"><h2>Systems</h2><div id="systems-plan" class="dim"></div><div id="systems-chart"></div></section>
</main>
)ECSPAGE"
           // Two literals: each stays under MSVC's limit for one string literal piece.
           R"ECSPAGE(<script>
"use strict";
const params=new URLSearchParams(location.search);const token=params.get('token')||'';
let writes=false,selected=null,entityTimer=null,watch=null,liveCount=0;
const $=id=>document.getElementById(id);
function withToken(url){if(!token)return url;return url+(url.includes('?')?'&':'?')+'token='+encodeURIComponent(token);}
async function api(method,url,body){
  const opt={method,headers:{}};if(token)opt.headers['Authorization']='Bearer '+token;
  if(body!==undefined){opt.body=typeof body==='string'?body:JSON.stringify(body);opt.headers['Content-Type']='application/json';}
  const r=await fetch(url,opt);const text=await r.text();let data=null;try{data=JSON.parse(text);}catch(e){data=text;}
  if(!r.ok)throw new Error((data&&data.error)||('HTTP '+r.status));return data;}
function el(tag,attrs,...kids){const e=document.createElement(tag);for(const k in attrs||{}){if(k==='text')e.textContent=attrs[k];else if(k.startsWith('on'))e.addEventListener(k.slice(2),attrs[k]);else e.setAttribute(k,attrs[k]);}for(const c of kids)if(c!=null)e.append(c);return e;}
function bytes(n){return n>1<<20?(n/1048576).toFixed(1)+' MiB':n>1024?(n/1024).toFixed(1)+' KiB':n+' B';}
async function refreshWorld(){try{const w=await api('GET','/api/world');
  for(const k of ['entities','archetypes','components','tracked','frame'])$('stat-'+k).textContent=w[k];
  $('stat-memory').textContent=bytes(w.memory_bytes);writes=!!w.writes;
  for(const b of document.querySelectorAll('.write'))b.disabled=!writes;$('status').textContent=writes?'writes allowed':'read-only';
}catch(e){$('status').textContent='offline: '+e.message;}}
async function refreshArchetypes(){const list=await api('GET','/api/archetypes');const max=Math.max(1,...list.map(a=>a.bytes));
  const chart=$('archetype-chart');chart.replaceChildren();
  for(const a of list.filter(a=>a.count>0||a.bytes>0)){chart.append(el('div',{class:'barrow','data-archetype':a.id},
    el('div',{class:'lbl',text:'#'+a.id+' ['+a.components.join(', ')+'] '+a.count+' rows, '+bytes(a.bytes)}),
    el('div',{class:'bar',style:'width:'+Math.max(1,100*a.bytes/max)+'%'})));}}
let components=[];
async function refreshComponents(){components=await api('GET','/api/components');const body=$('component-table').tBodies[0];body.replaceChildren();
  const sel=$('add-component');const keep=sel.value;sel.replaceChildren();
  for(const c of components){body.append(el('tr',{'data-component':c.name},el('td',{text:c.name+(c.tracked?' *':'')}),el('td',{text:c.storage}),el('td',{text:c.count}),el('td',{text:c.size})));
    sel.append(el('option',{value:c.name,text:c.name}));}if(keep)sel.value=keep;}
let listSeq=0,listTimer=null;
function refreshEntitiesSoon(){clearTimeout(listTimer);listTimer=setTimeout(refreshEntities,150);}
async function refreshEntities(){const seq=++listSeq;const q=new URLSearchParams({limit:'500'});
  if($('search').value)q.set('name',$('search').value);if($('filter-with').value)q.set('with',$('filter-with').value);if($('filter-without').value)q.set('without',$('filter-without').value);
  let data;try{data=await api('GET','/api/entities?'+q);}catch(e){if(seq===listSeq)$('entity-total').textContent=e.message;return;}
  if(seq!==listSeq)return; // a newer refresh is on its way
  $('entity-total').textContent='('+data.total+')';const ul=$('entity-list');ul.replaceChildren();
  const item=(e,depth)=>el('li',{'data-id':e.id,class:e.id===selected?'sel':'',style:'padding-left:'+(4+12*depth)+'px',onclick:()=>select(e.id)},
      el('span',{text:(e.name||e.id)}),el('span',{class:'dim',text:' '+e.id+' '+e.components.join(',')}));
  if(!$('tree-toggle').checked){for(const e of data.entities)ul.append(item(e,0));return;}
  const byId=new Map(data.entities.map(e=>[e.id,e]));const kids=new Map();
  for(const e of data.entities){const p=e.parent&&byId.has(e.parent)?e.parent:null;if(!kids.has(p))kids.set(p,[]);kids.get(p).push(e);}
  const walk=(p,d)=>{for(const e of kids.get(p)||[]){ul.append(item(e,d));if(d<32)walk(e.id,d+1);}};walk(null,0);}
function fieldInputs(comp,obj,path,box){for(const k in obj){const v=obj[k];const p=path.concat(k);
  if(v!==null&&typeof v==='object'&&!Array.isArray(v)){box.append(el('div',{class:'dim',text:p.join('.')}));fieldInputs(comp,v,p,box);continue;}
  const attrs={'data-component':comp,'data-path':JSON.stringify(p)};let input;
  if(typeof v==='boolean'){input=el('input',Object.assign({type:'checkbox'},attrs));input.checked=v;input.dataset.kind='bool';}
  else if(typeof v==='number'){input=el('input',Object.assign({type:'text',size:'10'},attrs));input.value=String(v);input.dataset.kind='number';}
  else if(typeof v==='string'){input=el('input',Object.assign({type:'text',size:'16'},attrs));input.value=v;input.dataset.kind='string';}
  else{input=el('input',Object.assign({type:'text',size:'24'},attrs));input.value=JSON.stringify(v);input.dataset.kind='json';}
  input.disabled=!writes;input.addEventListener('keydown',ev=>{if(ev.key==='Enter')save(comp);});
  input.addEventListener('input',()=>{$('entity-detail').dataset.dirty='1';}); // unsaved edits: no refresh
  box.append(el('div',{class:'field'},el('label',{text:k}),input));}}
async function save(comp){const obj={};for(const input of document.querySelectorAll('#entity-detail input[data-component="'+CSS.escape(comp)+'"]')){
  const path=JSON.parse(input.dataset.path);let v;const kind=input.dataset.kind;
  if(kind==='bool')v=input.checked;else if(kind==='number')v=Number(input.value);else if(kind==='string')v=input.value;else{try{v=JSON.parse(input.value);}catch(e){$('entity-error').textContent='bad JSON in '+path.join('.');return;}}
  let o=obj;for(let i=0;i<path.length-1;i++){o=o[path[i]]=o[path[i]]||{};}o[path[path.length-1]]=v;}
  try{await api('PUT','/api/entity/'+encodeURIComponent(selected)+'/'+encodeURIComponent(comp),obj);$('entity-error').textContent='';$('entity-detail').dataset.saved=comp;}
  catch(e){$('entity-error').textContent=e.message;}showEntity(true);}
async function select(id){selected=id;for(const li of document.querySelectorAll('#entity-list li'))li.classList.toggle('sel',li.dataset.id===id);await showEntity(true);}
async function showEntity(force){if(!selected)return;const box=$('entity-detail');
  if(!force&&(box.contains(document.activeElement)||box.dataset.dirty==='1'))return;
  let e;try{e=await api('GET','/api/entity/'+encodeURIComponent(selected));}catch(err){box.replaceChildren();$('entity-title').textContent=selected+' (gone)';$('entity-actions').style.display='none';return;}
  $('entity-title').textContent=(e.name?e.name+' ':'')+e.id;$('entity-actions').style.display='flex';$('entity-enabled').checked=e.enabled;$('entity-enabled').disabled=!writes;
  box.replaceChildren();box.dataset.id=e.id;delete box.dataset.dirty;
  for(const name in e.components){const v=e.components[name];const c=el('div',{class:'comp','data-component':name});
    const off=e.disabled.includes(name);
    c.append(el('h3',{},el('span',{text:name+(off?' (disabled)':'')}),el('span',{},
      v&&Object.keys(v).length&&writes?el('button',{'data-save':name,onclick:()=>save(name),text:'save'}):null,
      writes?el('button',{'data-remove':name,onclick:()=>removeComponent(name),text:'remove'}):null)));
    if(v===null)c.append(el('div',{class:'dim field',text:'(not reflected)'}));else fieldInputs(name,v,[],c);box.append(c);}
  const rel=el('div',{class:'comp'});rel.append(el('h3',{text:'Relations'}));
  if(e.parent)rel.append(el('div',{class:'field'},el('label',{text:'parent'}),el('a',{href:'#',onclick:ev=>{ev.preventDefault();select(e.parent);},text:e.parent})));
  if(e.children.length)rel.append(el('div',{class:'field'},el('label',{text:'children'}),el('span',{text:e.children.join(' ')})));
  for(const r in e.relations)rel.append(el('div',{class:'field'},el('label',{text:r}),el('span',{text:e.relations[r].join(' ')})));
  box.append(rel);}
async function removeComponent(name){try{await api('DELETE','/api/entity/'+encodeURIComponent(selected)+'/'+encodeURIComponent(name));}catch(e){$('entity-error').textContent=e.message;}showEntity(true);}
async function refreshSystems(){const s=await api('GET','/api/systems');$('systems-plan').textContent=s.plan||'(no schedule attached)';
  const max=Math.max(1,...s.systems.map(x=>x.avg_ns));const chart=$('systems-chart');chart.replaceChildren();
  for(const x of s.systems)chart.append(el('div',{class:'barrow','data-system':x.name},el('div',{class:'lbl',text:x.name+': '+(x.avg_ns/1000).toFixed(1)+' us avg, '+(x.last_ns/1000).toFixed(1)+' us last, '+x.runs+' runs'}),el('div',{class:'bar',style:'width:'+Math.max(1,100*x.avg_ns/max)+'%;background:#c58a3a'})));}
function rowCells(r){return [el('td',{text:r.id}),el('td',{},el('pre',{text:JSON.stringify(r.values||{})}))];}
async function runQuery(){const expr=$('query-input').value;$('query-error').textContent='';const body=$('query-rows').tBodies[0];
  try{const d=await api('GET','/api/query?'+new URLSearchParams({expr,limit:'200',values:'1'}));$('query-total').textContent=d.total;body.replaceChildren();
    for(const r of d.rows)body.append(el('tr',{'data-id':r.id},...rowCells(r)));}
  catch(e){$('query-error').textContent=e.message;$('query-total').textContent='-';body.replaceChildren();}}
function runWatch(){if(watch)watch.close();const expr=$('query-input').value;liveCount=0;const rows=new Map();const body=$('live-rows').tBodies[0];body.replaceChildren();
  watch=new EventSource(withToken('/api/watch?'+new URLSearchParams({expr})));$('live-status').textContent='(watching '+expr+')';
  watch.onmessage=ev=>{const d=JSON.parse(ev.data);liveCount++;$('live-events').textContent=liveCount;
    for(const r of d.rows)rows.set(r.id,r);for(const id of d.left)rows.delete(id);body.replaceChildren();
    let n=0;for(const r of rows.values()){if(++n>200)break;body.append(el('tr',{'data-id':r.id},...rowCells(r)));}};
  watch.onerror=()=>{$('live-status').textContent='(stream closed: '+expr+')';};}
$('query-run').onclick=runQuery;$('watch-run').onclick=runWatch;$('query-input').addEventListener('keydown',e=>{if(e.key==='Enter')runQuery();});
for(const id of ['search','filter-with','filter-without'])$(id).addEventListener('input',refreshEntitiesSoon);$('tree-toggle').onchange=refreshEntities;
$('entity-enabled').onchange=async()=>{try{await api('PUT','/api/entity/'+encodeURIComponent(selected)+'/enabled',$('entity-enabled').checked?'true':'false');}catch(e){$('entity-error').textContent=e.message;}};
$('add-component-btn').onclick=async()=>{try{await api('POST','/api/entity/'+encodeURIComponent(selected)+'/'+encodeURIComponent($('add-component').value),'{}');$('entity-error').textContent='';}catch(e){$('entity-error').textContent=e.message;}showEntity(true);};
$('destroy-entity').onclick=async()=>{try{await api('DELETE','/api/entity/'+encodeURIComponent(selected));}catch(e){$('entity-error').textContent=e.message;}refreshEntities();showEntity(true);};
$('create-entity').onclick=async()=>{try{const r=await api('POST','/api/entity','{}');await refreshEntities();select(r.id);}catch(e){$('status').textContent=e.message;}};
async function tick(){await refreshWorld();try{await refreshArchetypes();await refreshSystems();}catch(e){}}
(async()=>{await refreshWorld();await Promise.all([refreshComponents(),refreshEntities(),refreshArchetypes(),refreshSystems()]);document.body.dataset.ready='1';
  setInterval(tick,1000);setInterval(()=>showEntity(false),1000);setInterval(refreshComponents,3000);})();
</script></body></html>
)ECSPAGE";
}

} // namespace detail
} // namespace ecs
