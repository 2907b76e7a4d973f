import{createRequire as __minionsRequire}from'node:module';import{fileURLToPath as __minionsPath}from'node:url';const require=__minionsRequire(import.meta.url);const __filename=__minionsPath(import.meta.url);
import{execFileSync as l}from"node:child_process";function r(n,t){try{return l("git",t,{cwd:n,encoding:"utf8",stdio:["ignore","pipe","ignore"],timeout:5e3,maxBuffer:4*1024*1024})}catch{return null}}function f(n){return r(n,["rev-parse","--verify","-q","HEAD"])?.trim()||null}function g(n,t){let i=t?r(n,["diff","--name-only",t]):r(n,["diff","--name-only","--cached"]),s=r(n,["ls-files","--others","--exclude-standard"]);return[...new Set(`${i??""}
${s??""}`.split(`
`).map(e=>e.trim()).filter(e=>e&&!e.startsWith(".agents/")))].sort()}export{f as a,g as b};
