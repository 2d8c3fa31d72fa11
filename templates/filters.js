(function(){var f=document.getElementById('filters');if(!f)return;f.hidden=false;
function apply(){var failed=document.getElementById('f-failed').checked,d=document.getElementById('f-level').value,
t=document.getElementById('f-text').value.toLowerCase();document.querySelectorAll('details.question').forEach(function(q){
var ok=(!failed||q.dataset.status!=='passed')&&(!d||q.dataset.difficulty===d)&&(!t||q.dataset.text.indexOf(t)>=0);q.hidden=!ok;});}
f.addEventListener('input',apply);})();
