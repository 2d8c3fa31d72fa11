(function(){var size={{ lazy.chunk_size }},chunks={};
function bodies(k){if(!chunks[k]){var s=document.getElementById('chunk-'+k),b=atob(s.textContent.trim()),a=new Uint8Array(b.length);
for(var i=0;i<b.length;i++)a[i]=b.charCodeAt(i);
chunks[k]=new Response(new Blob([a]).stream().pipeThrough(new DecompressionStream('gzip'))).json();}return chunks[k];}
document.addEventListener('toggle',function(e){var q=e.target;if(!q.open||!q.classList||!q.classList.contains('question'))return;
var b=q.querySelector(':scope>div.body[data-body]');if(!b)return;var n=+b.dataset.body;
bodies(Math.floor(n/size)).then(function(all){if(b.parentNode)b.outerHTML=all[n%size];},
function(){b.textContent='This browser cannot open the compressed details (DecompressionStream); every detail is in eval_results.json.';});},true);})();
