function x = m2cu_str2double_cell(text, start, len)
%M2CU_STR2DOUBLE_CELL  str2double of an m2cu cell of texts (text, and each piece's offset and
% length): the number each piece writes, in an array of the cell's shape.
x = zeros(size(len));
for k = 1:numel(len)
  x(k) = str2double(text(start(k)+1 : start(k)+len(k)));
end
end
